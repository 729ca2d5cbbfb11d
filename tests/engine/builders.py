"""Datasets with systems and references built straight with the ORM, for the engine tests."""

from core.models import Dataset, Instance, Reference, System, SystemOutput


def build_dataset(name="ds", instances=10, systems=("alpha", "beta"), references=3, outputs=None):
    """A dataset of ``instances`` statements (ids "1".."n"), ``references`` references each, and
    one output per (system, instance): ``outputs(system_name, index)`` or "<system> reason <i>"."""
    dataset = Dataset.objects.create(name=name)
    created = Instance.objects.bulk_create(
        Instance(
            dataset=dataset,
            external_id=str(index + 1),
            position=index,
            false_sent=f"He put elephant number {index + 1} into the fridge.",
        )
        for index in range(instances)
    )
    Reference.objects.bulk_create(
        Reference(
            instance=instance, position=position, text=f"Reference {position} of statement {instance.external_id}."
        )
        for instance in created
        for position in range(1, references + 1)
    )
    for system_name in systems:
        system = System.objects.create(dataset=dataset, name=system_name)
        SystemOutput.objects.bulk_create(
            SystemOutput(
                system=system,
                instance=instance,
                text=outputs(system_name, index) if outputs else f"{system_name} reason {index + 1}.",
            )
            for index, instance in enumerate(created)
        )
    return dataset
