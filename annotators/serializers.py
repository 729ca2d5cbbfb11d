"""What goes in and out of the rater's endpoints, and nothing more: never a system, never another rater's score."""

from rest_framework import serializers

from core.defaults import NOTE_MAX_CHARS, SCORE_MAX, SCORE_MIN


class RubricEntrySerializer(serializers.Serializer):
    score = serializers.IntegerField()
    # A field named like DRF's Field.label: the serializer's metaclass takes it out of the class attributes,
    # which the stub cannot know.
    label = serializers.CharField()  # type: ignore[assignment]
    description = serializers.CharField(allow_blank=True)


class RaterProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Items this rater has rated.")
    total = serializers.IntegerField(help_text="done + held + items still open to this rater.")
    finished = serializers.BooleanField()


class RaterCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    instructions = serializers.CharField(allow_blank=True)
    rubric = RubricEntrySerializer(many=True)
    progress = RaterProgressSerializer()


class RaterItemSerializer(serializers.Serializer):
    """What a rater sees of an item: never the system, never other scores."""

    campaign_id = serializers.IntegerField()
    assignment_id = serializers.IntegerField(allow_null=True, help_text="Null when nothing is left for this rater.")
    statement = serializers.CharField(allow_null=True, help_text="The statement against common sense.")
    reason = serializers.CharField(allow_null=True, allow_blank=True, help_text="The explanation to score.")
    rubric = RubricEntrySerializer(many=True)
    progress = RaterProgressSerializer()
    lease_expires_at = serializers.DateTimeField(allow_null=True)


class RatingSerializer(serializers.Serializer):
    score = serializers.IntegerField(min_value=SCORE_MIN, max_value=SCORE_MAX)
    seconds = serializers.FloatField(
        required=False, allow_null=True, min_value=0, help_text="Time the rater spent on the item."
    )


class RatingResultSerializer(serializers.Serializer):
    assignment_id = serializers.IntegerField()
    score = serializers.IntegerField(help_text="The stored score (the first one, when submitted twice).")
    seconds = serializers.FloatField(allow_null=True)
    created = serializers.BooleanField(help_text="False when this repeats an earlier submit.")
    progress = RaterProgressSerializer()


class FlagSerializer(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=NOTE_MAX_CHARS)


class FlagResultSerializer(serializers.Serializer):
    assignment_id = serializers.IntegerField()
    flagged = serializers.BooleanField()
    released = serializers.BooleanField(help_text="Whether the item went back to the pool now.")


class CorrectionSerializer(serializers.Serializer):
    score = serializers.IntegerField(min_value=SCORE_MIN, max_value=SCORE_MAX, help_text="The score it should have.")


class CorrectionResultSerializer(serializers.Serializer):
    assignment_id = serializers.IntegerField()
    old_score = serializers.IntegerField(help_text="The score before this request.")
    score = serializers.IntegerField(help_text="The stored score now.")
    changed = serializers.BooleanField(help_text="False when the rating already had this score.")
