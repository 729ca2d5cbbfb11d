"""Table 6 of the task paper (Subtask C): team, marker, BLEU, BLEU rank, Human, Human rank."""

HUMAN_SCORE = 2.58
TABLE6 = [
    ("BUT-FIT", "", 22.4, 1, 1.84, 4),
    ("Solomon", "", 19.3, 2, 1.84, 4),
    ("KaLM", "", 18.5, 3, 2.08, 2),
    ("panaali", "*", 17.2, 4, 1.22, 11),
    ("JUSTers", "", 16.1, 5, 1.94, 3),
    ("cdjhz", "*", 16.0, 6, 1.75, 8),
    ("JBNU", "", 15.9, 7, 1.80, 6),
    ("ANA", "", 15.7, 8, 2.10, 1),
    ("LMVE", "+", 12.9, 9, 1.78, 7),
    ("CN-HIT-IT.NLP", "+", 9.7, 10, 1.74, 10),
    ("SWAGex", "", 7.1, 11, 1.75, 8),
    ("UI", "", 5.5, 12, 0.73, 14),
    ("TMLab", "*", 5.4, 13, 1.05, 12),
    ("CUHK", "", 4.3, 14, 0.58, 16),
    ("SSN-NLP", "", 2.2, 15, 0.59, 15),
    ("UoR", "+", 0.9, 16, 0.53, 17),
    ("Masked Reasoner", "+", 0.6, 17, 0.81, 13),
]


def ratings_with_mean(mean, n_instances, raters):
    """Scores (instances x raters) in 0-3 whose overall mean is exactly ``mean`` (a multiple of 1/(N*M))."""
    total = round(mean * n_instances * raters)
    base, extra = divmod(total, n_instances * raters)
    flat = [base + 1] * extra + [base] * (n_instances * raters - extra)
    # Interleave so that instances differ (a real-looking spread, not sorted blocks).
    flat = flat[::2] + flat[1::2]
    return [flat[i * raters : (i + 1) * raters] for i in range(n_instances)]
