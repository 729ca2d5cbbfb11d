import cProfile, pstats, pytest
from tests.metrics.test_real_data import *
from evalapp.services import metric_study

def test_profile(real_campaign):
    pr = cProfile.Profile(); pr.enable()
    metric_study.build_report(real_campaign, EVERY_METRIC, bootstrap=100, permutations=200, corpus_scope="campaign")
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(30)
