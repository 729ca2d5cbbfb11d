"""The ExternalQuestion XML: the builder (pure) and the management command."""

import xml.etree.ElementTree as ElementTree

import pytest
from django.core.management import CommandError, call_command

from evalapp.formats.external_question import NAMESPACE, ExternalQuestionError, external_question_xml

EXPECTED = f"""<?xml version="1.0" encoding="UTF-8"?>
<ExternalQuestion xmlns="{NAMESPACE}">
  <ExternalURL>https://eval.example.org/rate/mturk/7/?lang=en&amp;x=1</ExternalURL>
  <FrameHeight>0</FrameHeight>
</ExternalQuestion>
"""


def test_xml_is_escaped_and_parses_back():
    xml = external_question_xml("https://eval.example.org/rate/mturk/7/?lang=en&x=1")
    assert xml == EXPECTED
    root = ElementTree.fromstring(xml.encode())
    assert root.tag == f"{{{NAMESPACE}}}ExternalQuestion"
    assert root.find(f"{{{NAMESPACE}}}ExternalURL").text == "https://eval.example.org/rate/mturk/7/?lang=en&x=1"
    assert root.find(f"{{{NAMESPACE}}}FrameHeight").text == "0"


@pytest.mark.parametrize(
    "url, height",
    [
        ("http://eval.example.org/rate/mturk/7/", 0),
        ("/rate/mturk/7/", 0),
        ("https:///rate/", 0),
        ("https://eval.example.org/", -1),
        ("https://eval.example.org/", True),
        ("https://eval.example.org/", "600"),
    ],
)
def test_bad_address_or_height_is_refused(url, height):
    with pytest.raises(ExternalQuestionError):
        external_question_xml(url, height)


@pytest.mark.django_db
def test_command_prints_the_campaigns_question(campaign, capsys):
    call_command(
        "mturk_external_question",
        "--campaign",
        "Crowd",
        "--url",
        "https://eval.example.org/comve/",
        "--frame-height",
        "800",
    )
    root = ElementTree.fromstring(capsys.readouterr().out.encode())
    assert root.find(f"{{{NAMESPACE}}}ExternalURL").text == (
        f"https://eval.example.org/comve/rate/mturk/{campaign.pk}/{campaign.crowd_key}/"
    )
    assert root.find(f"{{{NAMESPACE}}}FrameHeight").text == "800"


@pytest.mark.django_db
def test_command_errors_name_the_problem(campaign):
    with pytest.raises(CommandError, match="no campaign named 'Nope'"):
        call_command("mturk_external_question", "--campaign", "Nope", "--url", "https://eval.example.org")
    with pytest.raises(CommandError, match="--url/--frame-height: the ExternalURL must be an absolute https://"):
        call_command("mturk_external_question", "--campaign", "Crowd", "--url", "http://eval.example.org")


@pytest.mark.django_db
def test_command_notes_when_mechanical_turk_is_not_enabled(campaign, capsys):
    campaign.mturk_enabled = False
    campaign.save()
    call_command("mturk_external_question", "--campaign", "Crowd", "--url", "https://eval.example.org")
    printed = capsys.readouterr()
    assert "Mechanical Turk is not enabled" in printed.err and "<ExternalURL>" in printed.out
