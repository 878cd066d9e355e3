"""The ONNX Runtime encoder gives the PyTorch model's vectors; when it cannot load, PyTorch takes over."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpus import embeddings
from corpus.evaluation import dev_set_read

QUESTIONS = [question.text for question in dev_set_read()[:40]] + [
    "",
    "x" * 3000,
    "¿Puedo votar si estoy en libertad condicional?",
]


def test_the_process_model_is_onnx_and_matches_pytorch() -> None:
    model = embeddings.get_model()
    assert model.backend == "onnx"
    torch_encoder = embeddings._TorchEncoder(embeddings.model_files_present())
    onnx_vectors = np.array(embeddings.embed(QUESTIONS))
    torch_vectors = torch_encoder.encode(QUESTIONS)
    assert onnx_vectors.shape == (len(QUESTIONS), embeddings.EMBEDDING_DIMENSIONS)
    cosines = (onnx_vectors * torch_vectors).sum(axis=1)
    assert cosines.min() > 0.9999, cosines.min()
    assert np.allclose(np.linalg.norm(onnx_vectors, axis=1), 1.0, atol=1e-5)


def test_batching_and_padding_do_not_change_a_vector() -> None:
    alone = np.array(embeddings.embed_one(QUESTIONS[0]))
    batched = np.array(embeddings.embed(QUESTIONS, batch_size=7)[0])
    assert float(alone @ batched) > 0.99999


def test_a_failed_onnx_load_falls_back_to_pytorch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(path: Path, target: Path) -> Path:
        raise RuntimeError("exporter unavailable")

    monkeypatch.setattr(embeddings, "_cache_dir", lambda: tmp_path / "models")  # nothing cached there
    monkeypatch.setattr(embeddings, "onnx_export", broken)
    encoder = embeddings._load()
    assert encoder.backend == "torch"
    assert "ONNX embedding backend unavailable" in caplog.text
    vector = encoder.encode(["where can I get a Texas ID"])[0]
    assert vector.shape == (embeddings.EMBEDDING_DIMENSIONS,)


def test_the_exported_graph_is_cached_and_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    embeddings.get_model()
    graph = embeddings._cache_dir() / embeddings._graph_name(embeddings.model_files_present())
    assert graph.is_file()
    monkeypatch.setattr(embeddings, "onnx_export", lambda path, target: pytest.fail("exported again"))
    assert embeddings._load().backend == "onnx"
