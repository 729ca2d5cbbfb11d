"""Every default and limit of the product, in one place. No imports at all, so every layer may import it.

The command line, the web pages and the REST API import their seeds, resample counts, caps,
text lengths and download types from here, so that the same request gives the same result
(and the same bytes) whichever door it comes through, and a value changed here changes everywhere.
The services, views, API, commands, the rater's app and ``core`` define no number of their own;
a pure module (compute, formats, metrics) keeps its mathematical and algorithmic constants (a block
size, an n-gram order) beside it but takes its defaults from here. tests/architecture/test_defaults.py
holds both rules, and that every name here is used.
"""

# --- the protocol (protocol.md#sample) ---------------------------------------------------
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
# Leases are asked for in minutes (the form, the command) and stored in seconds.
SECONDS_PER_MINUTE = 60
# Control items per system item when the organizer asks for none (protocol.md#control-items).
DEFAULT_CONTROL_RATE = 0.0
# A rubric's label and description of one score (a label shows on every rating screen).
RUBRIC_LABEL_MAX_CHARS = 80
RUBRIC_DESCRIPTION_MAX_CHARS = 1000
# An instance id of a ComVE file (the task's ids are short numbers).
INSTANCE_ID_MAX_CHARS = 64
# A message about ids that are missing names this many of them, then "...".
MISSING_IDS_SHOWN = 5
# Rows written per INSERT when a campaign, an import or a metric study stores many at once.
BULK_CREATE_BATCH = 1000

# A campaign's crowd entry key: this many random bytes (256 bits), URL-safe.
CROWD_KEY_BYTES = 32
# The worked example shown as a crowd preview's sample item: a reason that is neither best nor worst.
PREVIEW_EXAMPLE_SCORE = 2
# A crowd account's name ends in this many random bytes (hex), so two workers' names never clash.
CROWD_ACCOUNT_SUFFIX_BYTES = 4
# A crowd platform's completion address (Django's URLField length).
COMPLETION_URL_MAX_CHARS = 200

# --- seeds -------------------------------------------------------------------------------------
# The task's year: the default seed of the sample, the bootstrap, the permutation tests and
# the metric study, so that a figure computed without a seed can be computed again.
DEFAULT_SEED = 2020
# A campaign's stored sample seed fits a signed 64-bit column; a seed drawn for the organizer
# stays short enough to read out and type again; a request's seed fits NumPy's 32-bit seeding.
CAMPAIGN_SEED_BOUND = 2**63
DRAWN_SEED_BOUND = 2**31
REQUEST_SEED_BOUND = 2**32
# A rater's own order of the items is drawn from a seed below this bound (core/engine.py).
RATER_ORDER_SEED_BOUND = 2**62

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
# A study's "top k" systems: at least two (two points make a correlation); by default half the
# systems, but at least DEFAULT_TOP_K_MIN; a request may ask for up to MAX_TOP_K.
TOP_K_MIN = 2
DEFAULT_TOP_K_MIN = 3
MAX_TOP_K = 10_000
MAX_MODEL_LAYER = 100
# Table 6 without bootstrap intervals unless they are asked for (0 resamples: none).
DEFAULT_TABLE6_RESAMPLES = 0
# The smallest tie margin the campaign form offers (the service takes any margin above 0, which
# the form's number field cannot express).
MIN_TIE_MARGIN = 0.001
# The study planner's target power: below 0.05 is no plan, 1 cannot be reached.
PLANNER_MIN_POWER = 0.05
PLANNER_MAX_POWER = 0.999999
# The smallest significance level the planner takes (a level of 0 needs infinitely many ratings).
PLANNER_MIN_ALPHA = 1e-6
# Figures stored in a significance record are rounded this far below display, so that files are
# identical across platforms; a plan's figures are shown with this many decimals.
RECORD_DIGITS = 12
PLAN_DIGITS = 3

# --- text --------------------------------------------------------------------------------------
NUL = "\x00"  # no text field accepts it (and PostgreSQL cannot store it)
# A number in a job's options (evalapp/options/) written with more characters than this is refused before
# Python parses it: no bound of any option is near it (Python itself refuses 4,300 digits, less helpfully).
OPTION_NUMBER_MAX_CHARS = 40
NAME_MAX_CHARS = 100  # datasets, systems, campaigns, metrics
MODEL_NAME_MAX_CHARS = 200  # a BERTScore model name or local path
NOTE_MAX_CHARS = 2000  # a rater's note on a broken item
REASON_MAX_CHARS = 1000  # an organizer's reason for excluding a rater
# Axes keeps a login name in a 255-character column; a longer one is no account's name anyway.
USERNAME_MAX_CHARS = 255
# A synthetic rater id of an imported ratings file: this many hex characters of the file's hash.
RATINGS_FILE_HASH_CHARS = 16
# The kept choice (a signed cookie): long enough to log in again after a lost session, short
# enough not to resurface days later. Browsers drop a cookie over 4096 bytes (name and attributes
# included); a longer note is cut.
PENDING_CHOICE_MAX_AGE_SECONDS = 24 * 60 * 60
COOKIE_VALUE_MAX_BYTES = 3800
# An import or a check reports at most this many problems, with a count of the rest.
MAX_REPORTED_PROBLEMS = 50

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
# Table 6 reads a million counted ratings as one packed BIGINT each (evalapp/services/results.py): the
# packed columns may use this many bits (a BIGINT has 63 and a sign), and each id field leaves this
# much room above the largest id, for ids made while the rows are read.
PACKED_BITS = 62
PACKED_ID_MARGIN = 2**20
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
# Processes of one metric report: with 2, soft pairwise accuracy (its own random streams) is computed in a
# forked child beside the correlations, acc_eq and the comparisons; the figures are the same with 1.
METRIC_REPORT_PROCESSES = 2
# Part of every metric report's fingerprint: raise it when a change of the statistics' code changes the
# figures a seed gives (2: the comparisons' coin flips from every bit), so that a finished run made by
# the former code is not reused as if a new computation would give its figures.
METRIC_REPORT_STATISTICS_VERSION = 2
# Significance level of the metric ranking's clusters (paired bootstrap, as the WMT metrics tasks).
RANKING_ALPHA = 0.05
# Part of every stored segment score's key: raise it when a metric's own code changes its scores.
METRIC_SCORE_CACHE_VERSION = 1
# BERTScore embeds the instances in blocks of about this many distinct sentences, keeping a sentence's
# embeddings only until its last block is matched (about 1.5 KiB per token with the default model).
BERTSCORE_EMBED_BLOCK_SENTENCES = 2048
# A finished BERTScore child process gets this many seconds to exit before it is stopped.
BERTSCORE_CHILD_EXIT_SECONDS = 5
# A metric run writes its progress at most once per this many seconds; a new run reuses a finished
# one with the same settings among the campaign's last this many; the study's progress bar gives
# this share to computing the scores (the rest is the bootstrap); stored segment scores are looked
# up this many keys per query.
METRIC_RUN_PROGRESS_WRITE_SECONDS = 1.0
METRIC_RUN_REUSE_LOOKBACK = 50
METRIC_STUDY_COMPUTE_SHARE = 0.6
SCORE_LOOKUP_BATCH = 500

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
# The data page lists this many recent submissions; the metric page this many recent runs.
RECENT_SUBMISSIONS = 20
RECENT_METRIC_RUNS = 10
# A running metric run's page reloads itself (without JavaScript) after this many seconds; with
# JavaScript, metric-run.js asks the API this often.
METRIC_RUN_REFRESH_SECONDS = 3
METRIC_RUN_POLL_MILLISECONDS = 1000

# --- the database and the session -----------------------------------------------------------------
# Retry on lock contention (core/retry.py): at most this many attempts, the backoff doubling from
# the first to the largest wait.
MAX_ATTEMPTS = 8
FIRST_BACKOFF_SECONDS = 0.005
MAX_BACKOFF_SECONDS = 0.5
# A session's last-activity stamp is rewritten at most once per this share of the session's age
# (a write per request would cost the rater loop a database write on every page).
ACTIVITY_RESOLUTION_SHARE = 10
# How many items, from the front of the campaign's key order on, a rater's own order chooses among.
ORDER_WINDOW = 16

# --- rater quality -----------------------------------------------------------------------------------
# Below these counts a figure is shown but says too little to flag a rater on.
MIN_CONTROL_RATINGS = 3
MIN_COMPARED_PAIRS = 5
MIN_TIMED_RATINGS = 5

# --- the demo (manage.py demo) --------------------------------------------------------------------
# The demo campaigns (with the protocol's raters per item and, for the ready-to-rate one, the default
# seed): control items per system item and the reference rated as Human; the demo's rater accounts
# (rater1, rater2, ...); the rated demo-study's seed and the spread of one rating around a system's quality.
DEMO_CONTROL_RATE = 0.1
DEMO_HUMAN_REFERENCE = 1
DEMO_RATER_ACCOUNTS = 3
DEMO_STUDY_SEED = 2021
DEMO_STUDY_NOISE = 0.7

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
