"""JATOS's results archive (Export Results → JATOS Results Archive, a ``.jrzip`` or
``.zip``), read within limits checked before anything is unpacked.

An archive is a few kilobytes that may say it unpacks to gigabytes (a zip bomb: entries
that share one compressed stream, or a stream of one repeated byte), or hold hundreds of
thousands of entries. Its end record and central directory say how many entries it has
and how large each is once unpacked, and a member is never read past the size it
declares, so the sums below bound the work before a byte is inflated:

* :data:`MAX_ENTRIES` entries, read from the end record before the directory is parsed;
* :data:`MAX_UNPACKED` bytes of results (``data.txt``) in all, and
  :data:`MAX_DATA_BYTES` in one;
* a ratio of at most :data:`MAX_RATIO` to 1 between a result's declared size and its
  compressed size, for results over :data:`RATIO_FROM` bytes (JATOS's data, a trial of
  JSON per line, compresses about 20 to 1; one byte repeated, about 1,000 to 1).

Each refusal says the archive's figure and the limit.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from elot.errors import printable
from elot.survey import SurveyError

#: The most entries an archive may have (a study of 10,000 participants has about 30,000).
MAX_ENTRIES = 200_000
#: The most bytes of results (every ``data.txt``) an archive may unpack to: as much as
#: ``import`` reads of an export.
MAX_UNPACKED = 1 << 30
#: The most bytes one result (``data.txt``) may unpack to.
MAX_DATA_BYTES = 256 << 20
#: The largest ratio of unpacked to compressed size of one result over :data:`RATIO_FROM`.
MAX_RATIO = 200
RATIO_FROM = 1 << 20

DATA = re.compile(r"(?:.*/)?study_result_(\d+)/comp-result_(\d+)/data\.txt")
HINT = "give the results archive JATOS exports (Results → Export Results → JATOS Results Archive)"


def _size(n: int) -> str:
    """``n`` bytes in words (MiB, GiB)."""
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else \
        f"{n:,} bytes"


def _declared_entries(path: Path) -> int | None:
    """The number of entries the archive's end record declares (None if it cannot be read:
    :class:`zipfile.ZipFile` then says what is wrong)."""
    try:
        with open(path, "rb") as handle:
            record = zipfile._EndRecData(handle)      # the end record (or its ZIP64 form), alone
    except (OSError, AttributeError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    return None if not record else record[zipfile._ECD_ENTRIES_TOTAL]


def results(path: Path) -> list[tuple[str, str, str]]:
    """Each result's data in the archive at ``path``: ``(text, label, study result N)``,
    in the archive's order; a result that never sent data (opened, then closed) is left
    out. Files beside the data (``metadata.json``, uploaded ``files/``) are not read.
    Refused before anything is unpacked when the archive is over a limit."""
    entries = _declared_entries(path)
    if entries is not None and entries > MAX_ENTRIES:
        raise SurveyError(f"{path} declares {entries:,} entries, more than the {MAX_ENTRIES:,} import reads "
                          "(a results archive holds about three per participant)", hint=HINT)
    out = []
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_ENTRIES:
                raise SurveyError(f"{path} holds {len(members):,} entries, more than the {MAX_ENTRIES:,} import reads",
                                  hint=HINT)
            data = [(member, match) for member in members if (match := DATA.fullmatch(member.filename))]
            if not data:
                raise SurveyError(f"{path} holds no JATOS results (no study_result_N/comp-result_M/data.txt)",
                                  hint=HINT)
            total = sum(member.file_size for member, _ in data)
            if total > MAX_UNPACKED:
                raise SurveyError(f"{path} would unpack to {_size(total)} of results ({len(data):,} data.txt, "
                                  f"{_size(path.stat().st_size)} packed), more than the {_size(MAX_UNPACKED)} "
                                  "import reads", hint=HINT + "; a larger study: import JATOS's results in parts")
            for member, match in data:
                label = f"{path}:{printable(member.filename, 200)}"
                if member.file_size > MAX_DATA_BYTES:
                    raise SurveyError(f"{label} would unpack to {_size(member.file_size)}, more than the "
                                      f"{_size(MAX_DATA_BYTES)} one result may", hint=HINT)
                ratio = member.file_size / max(1, member.compress_size)
                if member.file_size > RATIO_FROM and ratio > MAX_RATIO:
                    raise SurveyError(f"{label} would unpack to {_size(member.file_size)} from "
                                      f"{_size(member.compress_size)}, {ratio:,.0f} to 1, past the {MAX_RATIO} to 1 "
                                      "of any study's data (JATOS's compress about 20 to 1): not a results archive "
                                      "(a zip bomb?)", hint=HINT)
                with archive.open(member) as stream:
                    raw = stream.read(MAX_DATA_BYTES + 1)     # never past the size it declares
                try:
                    text = raw.decode("utf-8-sig")
                except UnicodeDecodeError:
                    raise SurveyError(f"{label} is not UTF-8 text", hint=HINT) from None
                if text.strip():
                    out.append((text, label, match.group(1)))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as error:
        raise SurveyError(f"{path} is not a readable zip archive: {printable(error, 200)}", hint=HINT) from None
    except OSError as error:
        raise SurveyError(f"cannot read {path}: {error.strerror or error}", hint=HINT) from None
    return out
