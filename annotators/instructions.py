"""What a rater reads before the first item: the campaign's rubric and worked examples.

The examples use the statement of the task paper's introduction; each reason is scored on the
0-3 scale of Table 1, whose wording the campaign's rubric may adapt.
"""

from dataclasses import dataclass

WORKED_STATEMENT = "He put an elephant into the fridge."


@dataclass(frozen=True)
class WorkedExample:
    score: int
    reason: str
    why: str


WORKED_EXAMPLES = (
    WorkedExample(
        0,
        "Elephants are usually white while fridges are usually white.",
        "It does not explain the statement: it compares colours, which have nothing to do "
        "with it, and makes no sense itself.",
    ),
    WorkedExample(
        1, "He cannot put an elephant into the fridge.", "It only negates the statement; it does not say why."
    ),
    WorkedExample(
        2,
        "An elephant is much more bigger than fridge and it eats grass.",
        "The right idea, but with grammatical errors and an unnecessary part.",
    ),
    WorkedExample(
        3, "An elephant is much bigger than a fridge.", "A solid explanation of why the statement does not make sense."
    ),
)


def worked_examples(campaign):
    """The worked examples, each with the campaign's label for its score."""
    labels = {entry["score"]: entry["label"] for entry in campaign.rubric}
    return [(example, labels.get(example.score, "")) for example in WORKED_EXAMPLES]
