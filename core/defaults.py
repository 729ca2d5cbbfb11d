"""Every default and limit that more than one entry point uses, in one place. No Django imports.

The command line, the web pages and the REST API import their seeds, resample counts, caps,
text lengths and download types from here, so that the same request gives the same result
(and the same bytes) whichever door it comes through. A value that only one algorithm uses
internally (a block size, an n-gram order) stays beside that algorithm.
"""

# --- the protocol (S2) ---------------------------------------------------------------------
SCORE_MIN, SCORE_MAX = 0, 3
REFERENCE_POSITIONS = (1, 2, 3)
PAPER_SAMPLE_SIZE = 100
# Table 6's team markers, as the task paper's footnotes explain them: one text for every page and export.
TEAM_MARKERS = {"*": "* no system description paper", "+": "+ the system description paper does not describe Subtask C"}
DEFAULT_RATERS_PER_ITEM = 3
# Far beyond any published protocol; stops a typo (30 for 3) from making an unfinishable campaign.
MAX_RATERS_PER_ITEM = 50
DEFAULT_LEASE_SECONDS = 30 * 60
# A shorter lease would run out while a rater is still reading the item; a longer one than a
# week would keep an abandoned item from other raters for most of a campaign.
MIN_LEASE_SECONDS = 60
MAX_LEASE_SECONDS = 7 * 24 * 60 * 60

# A campaign's crowd entry key: this many random bytes (256 bits), URL-safe.
CROWD_KEY_BYTES = 32

# --- seeds -------------------------------------------------------------------------------------
# The task's year: the default seed of the sample, the bootstrap, the permutation tests and
# the metric study, so that a figure computed without a seed can be computed again.
DEFAULT_SEED = 2020
# A campaign's stored sample seed fits a signed 64-bit column; a seed drawn for the organizer
# stays short enough to read out and type again; a request's seed fits NumPy's 32-bit seeding.
CAMPAIGN_SEED_BOUND = 2**63
DRAWN_SEED_BOUND = 2**31
REQUEST_SEED_BOUND = 2**32

# --- statistics --------------------------------------------------------------------------------
CONFIDENCE_LEVEL = 0.95
SIGNIFICANCE_ALPHA = 0.05
# Bootstrap resamples of the instances (intervals of human scores and of correlations).
DEFAULT_RESAMPLES = 1000
# Permutations of the paired test behind Table 6's significance clusters.
DEFAULT_PERMUTATIONS = 10_000
# Permutations of the metric study's paired tests (a study runs many of them).
METRIC_STUDY_PERMUTATIONS = 1000
# What one web or API request may ask for: ten times the defaults is plenty for a paper.
# The command line has no cap.
MAX_REQUEST_RESAMPLES = 10 * DEFAULT_RESAMPLES
MAX_REQUEST_PERMUTATIONS = 10 * DEFAULT_PERMUTATIONS
MAX_STUDY_PERMUTATIONS = 10 * METRIC_STUDY_PERMUTATIONS
MAX_TOP_K = 10_000
MAX_MODEL_LAYER = 100

# --- text --------------------------------------------------------------------------------------
NUL = "\x00"  # no text field accepts it (and PostgreSQL cannot store it)
NAME_MAX_CHARS = 100  # datasets, systems, campaigns, metrics
MODEL_NAME_MAX_CHARS = 200  # a BERTScore model name or local path
NOTE_MAX_CHARS = 2000  # a rater's note on a broken item
REASON_MAX_CHARS = 1000  # an organizer's reason for excluding a rater

# --- downloads ---------------------------------------------------------------------------------
# Every download is UTF-8 text of one of these media types (the API's renderers use them too).
MEDIA_TYPES = {
    "csv": "text/csv",
    "json": "application/json",
    "markdown": "text/markdown",
    "latex": "application/x-latex",
    "html": "text/html",
}
DOWNLOAD_CHARSET = "utf-8"
# A download, like every page of a signed-in user, is never kept by a cache (core/middleware.py).
NO_STORE = "no-store, private"
EXTENSIONS = {"csv": "csv", "json": "json", "markdown": "md", "latex": "tex", "html": "html"}
FORMAT_LABELS = {"csv": "CSV", "json": "JSON", "markdown": "Markdown", "latex": "LaTeX", "html": "HTML"}

# --- the REST API ------------------------------------------------------------------------------
# A JSON request body: at most this many bytes, nested at most this deep.
# Request bodies are read only in these charsets (codec names as ``codecs.lookup`` gives them): text
# transforms (rot13, base64, unicode_escape) and wide encodings are refused with 415 before parsing.
SAFE_REQUEST_CHARSETS = frozenset({"utf-8", "ascii", "iso8859-1"})
MAX_JSON_BYTES = 1024 * 1024
# A reconciliation's answer lists at most this many of the file's unmatched records (and of its
# sessions under another worker), with the counts of all: a 20 MiB file of unknown rows once
# answered with 117 MB of JSON.
RECONCILIATION_LISTED_RECORDS = 50
MAX_JSON_DEPTH = 32
# Ids in URLs and queries stay below 10**18, inside a signed 64-bit integer column.
MAX_ID_DIGITS = 18
MAX_ID = 10**MAX_ID_DIGITS - 1
PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
# Token requests per client address (the lockout after failed logins is django-axes', in settings).
LOGIN_RATE = "30/minute"
# Crowd entry (the Start of a MTurk HIT or Prolific study) makes an account and a session: at most
# this many per client address, and per campaign, in the period (settings COMVE_CROWD_ENTRY_RATE_*).
CROWD_ENTRY_RATE_PER_ADDRESS = "20/minute"
CROWD_ENTRY_RATE_PER_CAMPAIGN = "600/minute"


def content_type(fmt):
    """The ``Content-Type`` of a download in format ``fmt``."""
    return f"{MEDIA_TYPES[fmt]}; charset={DOWNLOAD_CHARSET}"


def download_filename(kind, campaign_name, fmt, suffix=""):
    """The one file name of a download: ``<kind>-<campaign>[-<suffix>].<extension>``.

    The campaign name is reduced to letters, digits, ``-`` and ``_`` so that it can never
    break out of a ``Content-Disposition`` header's quoted string.
    """
    stem = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in campaign_name).strip("_")
    parts = [kind, stem or "campaign"] + ([suffix] if suffix else [])
    return f"{'-'.join(parts)}.{EXTENSIONS[fmt]}"


# --- issue 14: organizer statistics (rater effects, Table 6 page, study planner, ranking stability) ---
# The mixed model of Table 6's human_adjusted column works on dense (raters + instances)^2
# matrices: at most this many raters and instances together (128 MB at the cap), else "not fitted".
MAX_ADJUSTED_LEVELS = 4000
# How long a fitted mixed model, a stability estimate or a study plan stays in Django's cache;
# each is keyed by a digest of the ratings it was made from, so a new rating never reads a stale one.
RESULTS_CACHE_SECONDS = 24 * 60 * 60
# Up to this many counted ratings the mixed model is fitted where it is asked for (milliseconds to a
# fraction of a second); above, once per state of the ratings by the background worker (db_worker),
# and Table 6 says "being computed" until it is ready, so an export never waits for it (issue 22).
ADJUSTED_INLINE_MAX_RATINGS = 50_000
# How long a queued background fit keeps others from queueing the same fit again.
ADJUSTED_QUEUE_SECONDS = 60 * 60
# The study planner: its defaults, and the bounded search of its simulation (per candidate N:
# PLANNER_SIMULATIONS resampled studies, each tested with PLANNER_PERMUTATIONS sign patterns).
PLANNER_ALPHA = 0.05
PLANNER_POWER = 0.8
PLANNER_SIMULATIONS = 400
PLANNER_PERMUTATIONS = 500
PLANNER_MAX_INSTANCES = 5000
# The planner simulates the best this many adjacent pairs (about 0.1 s each on 2 busy cores); the
# others get only the normal figure (instances_needed_simulated null).
PLANNER_MAX_SIMULATED_PAIRS = 40
# The largest significance level the planner takes (a two-sided test at more is no test).
PLANNER_MAX_ALPHA = 0.5
# Ranking stability while a campaign runs: "settled" once every team keeps its rank and its cluster
# in at least this share of bootstrap completions; replicates and permutations per replicate.
STABILITY_THRESHOLD = 0.95
STABILITY_REPLICATES = 100
STABILITY_PERMUTATIONS = DEFAULT_PERMUTATIONS  # as Table 6: fewer cannot pass Holm over many pairs
# Teams x sampled instances above which the stability is not estimated (about 4 s at the paper's
# 17 x 100 on 2 busy cores, and it grows with teams^2 x instances).
STABILITY_MAX_CELLS = 5000

# --- issue 13: the metric study's WMT statistics and stored metric scores ------------------------
# Soft pairwise accuracy (Thompson et al. 2024): permutations of its paired tests, and, for its
# bootstrap interval, the resamples (the first of the study's) and the permutations in each.
SPA_PERMUTATIONS = 1000
SPA_BOOTSTRAP_RESAMPLES = 200
SPA_BOOTSTRAP_PERMUTATIONS = 200
# Significance level of the metric ranking's clusters (paired bootstrap, as the WMT metrics tasks).
RANKING_ALPHA = 0.05
# Part of every stored segment score's key: raise it when a metric's own code changes its scores.
METRIC_SCORE_CACHE_VERSION = 1

# --- lab rater accounts ------------------------------------------------------------------------
# A printed password: this many characters from an alphabet without look-alikes (about 71 bits).
LAB_PASSWORD_CHARS = 14
LAB_PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
# Raters one request or file may create at once (a lab, not a crowd: a crowd enters by a platform).
MAX_LAB_RATERS_AT_ONCE = 500

# --- the home page -----------------------------------------------------------------------------
# Campaigns with a checklist of their own on the home page (open ones first, then the newest);
# the rest are one link away, on the campaign list.
HOME_MAX_CAMPAIGNS = 10

# --- issue 19: rater-aware uncertainty, clustering rules ------------------------------------------
# Below this many raters (or when no rater has two ratings) the rater term of Table 6's intervals and
# tests cannot be estimated: they fall back, visibly, to instance clusters alone.
RATER_AWARE_MIN_RATERS = 5
# The clustering rules of Table 6: "holm" (every system above significantly better than every system
# below, Holm-corrected two-sided p) and "wmt" (mt-metrics-eval's AssignRanks on one-sided p, no correction).
CLUSTER_RULES = ("holm", "wmt")
DEFAULT_CLUSTER_RULE = "holm"

# --- issue 23: stopping early with a guarantee (anytime-valid decisions per pair of systems) --------
# The family-wise level of every decision a campaign ever shows (split over its pairs of systems).
SEQUENTIAL_ALPHA = 0.05
# Two systems closer than this on the 0-3 scale are a "tie" once the interval says so; fixed per
# campaign before rating starts (Campaign.tie_margin), this is the default.
DEFAULT_TIE_MARGIN = 0.1
# A tie margin of more than half the 0-3 scale would call clearly different systems tied.
MAX_TIE_MARGIN = 1.5
# The bets of the hedged-capital confidence sequence (Waudby-Smith and Ramdas 2024, section 4.2) are
# truncated at c/m and c/(1-m) for a candidate mean m in [0, 1], with c this value (the paper: 1/2 or 3/4).
SEQUENTIAL_BET_TRUNCATION = 0.75
# Racing runs in the background worker as ratings arrive: one pending check per campaign at a time
# (later ratings join it). If the worker never takes it, a new rating may queue another after this.
RACING_PENDING_SECONDS = 600

# --- issue 20: a rater corrects their last score ---------------------------------------------------
# How long after a submit the rater may still change that score (from the next item's page or the
# API), and only while it is their last rating in the campaign: long enough to notice a slip, short
# enough that a rating is not revised after seeing other items.
CORRECTION_WINDOW_SECONDS = 120
# A metric run's time left is estimated (elapsed x (1 - progress) / progress) only once it has done
# this share of its work and run this many seconds: before that the figure jumps about too much.
METRIC_RUN_ETA_MIN_PROGRESS = 0.05
METRIC_RUN_ETA_MIN_SECONDS = 3
METRIC_RUN_REUSE_LOOKBACK = 50  # a campaign's newest finished metric runs searched for one with the same settings
