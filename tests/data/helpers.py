"""A three-instance dataset written inline, and a snapshot of the data tables."""

from core.models import Dataset, Instance, Reference, System, SystemOutput
from evalapp.formats.comve import SourceFile
from evalapp.models import Submission

STATEMENTS = (
    b"id,FalseSent\n1,He put an elephant into the fridge.\n2,The sun rises in the west.\n3,Cats read newspapers.\n"
)
REFERENCES = (
    b"1,An elephant is bigger than a fridge.,A fridge is too small for an elephant.,Elephants do not fit.\n"
    b'2,The sun rises in the east.,The sun comes up in the east.,"In the west, the sun sets."\n'
    b"3,Cats cannot read.,A cat does not understand words.,Only people read newspapers.\n"
)
PAIRS = (
    b"id,sent0,sent1\n1,He put an elephant into the fridge.,He put a turkey into the fridge.\n"
    b"2,The sun rises in the east.,The sun rises in the west.\n3,Cats read newspapers.,People read newspapers.\n"
)
PAIR_ANSWERS = b"1,0\n2,1\n3,0\n"
SUBMISSION = b"1,An elephant is too big for a fridge.\n2,The sun rises in the east.\n3,Cats cannot read.\n"


def source(name, data):
    return SourceFile(name, data)


def mini_files(statements=STATEMENTS, references=REFERENCES):
    return source("statements.csv", statements), source("references.csv", references)


def import_mini(name="mini"):
    from evalapp.services.imports import import_comve

    return import_comve(name, *mini_files()).dataset


def db_counts():
    return {
        model.__name__: model.objects.count()
        for model in (Dataset, Instance, Reference, System, SystemOutput, Submission)
    }
