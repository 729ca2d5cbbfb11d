"""The Mechanical Turk ExternalQuestion document that shows the rater screens in a HIT (pure Python).

Given as the ``Question`` of ``CreateHIT``: MTurk frames ``ExternalURL`` (HTTPS only) and
appends ``assignmentId``, ``hitId``, ``workerId`` and ``turkSubmitTo`` to it.
"""

from urllib.parse import urlsplit
from xml.sax.saxutils import escape

NAMESPACE = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
# MTurk fits a frame of height 0 to the worker's window, which suits phones best.
AUTO_FRAME_HEIGHT = 0


class ExternalQuestionError(ValueError):
    """The address or the frame height cannot make a valid ExternalQuestion."""


def external_question_xml(external_url: str, frame_height: int = AUTO_FRAME_HEIGHT) -> str:
    """The ExternalQuestion XML for ``external_url`` (absolute, https) and ``frame_height`` pixels."""
    parts = urlsplit(external_url)
    if parts.scheme != "https" or not parts.hostname:
        raise ExternalQuestionError(
            f"the ExternalURL must be an absolute https:// address (Mechanical Turk "
            f"frames HTTPS pages only), not {external_url!r}"
        )
    if isinstance(frame_height, bool) or not isinstance(frame_height, int) or frame_height < 0:
        raise ExternalQuestionError(
            f"the frame height must be a whole number of pixels, 0 or more "
            f"(0 fits the worker's window), not {frame_height!r}"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<ExternalQuestion xmlns="{NAMESPACE}">\n'
        f"  <ExternalURL>{escape(external_url)}</ExternalURL>\n"
        f"  <FrameHeight>{frame_height}</FrameHeight>\n"
        "</ExternalQuestion>\n"
    )
