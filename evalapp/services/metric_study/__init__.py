"""The metric study of a campaign (S10): one module per step.

``texts`` (the candidate and reference texts the metrics score, read from the database),
``score_cache`` (each output's metric score computed once and stored; the study's fingerprint),
``score_import`` (a researcher's own metric scores from a CSV file), ``statistics`` (the pure
step: the figures from the scores and the ratings), ``report`` (choosing the metrics and building
the typed :class:`~evalapp.compute.metric_study_report.MetricReport`) and ``runs`` (metric runs:
start, execute, cancel, reuse, progress). Each module imports only the ones listed before it
(``.importlinter``'s ``metric-study`` contract); the views, the API, the commands and the tasks
call ``report``, ``runs`` and ``score_import``.

Which instances: a metric's system-level score is computed on the whole dataset by default
(``corpus_scope="dataset"``, as Table 6 scores BLEU on the full test set) or on the
campaign's sampled instances only (``"campaign"``); segment-level scores are always those of
the campaign's sampled instances, the ones people rated. Instances without references are
left out. When the campaign's ``Human`` pseudo-system is reference k, every system (Human
included) is scored against the other references. The Human pseudo-system is listed with its
scores but left out of every correlation: it is not one of the systems a metric must rank.
"""
