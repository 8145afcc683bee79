"""Step 1 of the offline parser: the sentence as lowercase text with contractions
expanded, numbers as digits and fillers dropped."""

from __future__ import annotations

import re

_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}
_NUMBER_WORD = "|".join(_NUMBERS)
_ORDINAL_WORD = "|".join(_ORDINALS)

# Words that change nothing in what is claimed about the boxes.
_FILLERS = re.compile(
    r"\b(?:currently|now|still|really|actually|definitely|truly|also|already|right now|"
    r"at the moment|at this point|for sure|for certain|strongly|firmly|indeed|clearly)\b"
)
INITIAL = re.compile(
    r"\b(?:initially|originally|at first|at the (?:start|beginning)|in the beginning|"
    r"to begin with|before (?:moving|starting|opening any box(?:es)?))\b,?"
)
# Number words after a box word or inside a list of boxes ("box one or two").
_NUMBER_AFTER_BOX = re.compile(rf"(\bbox(?:es)?|\band|\bor|\bnor|,)\s+({_NUMBER_WORD})\b(?! of\b)")


def normalize(sentence: str) -> str:
    """Lowercase text with contractions expanded, numbers as digits and fillers dropped."""
    s = sentence.strip().lower()
    s = s.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", "").replace("\u201d", "")
    s = re.sub(r"[\"]", "", s)
    s = re.sub(r"[.!?;]+$", "", s).strip()
    s = re.sub(r"\bwon't\b", "will not", s)
    s = re.sub(r"\bcan't\b|\bcannot\b", "can not", s)
    s = re.sub(r"\b(\w+)n't\b", r"\1 not", s)
    s = re.sub(r"\b(there|it|what|that|where)'s\b", r"\1 is", s)
    s = re.sub(r"\b(there|it)'ll\b", r"\1 will", s)
    s = re.sub(r"\bthey key\b", "the key", s)
    s = re.sub(r"\bcolour", "color", s)
    s = re.sub(r"\b(box(?:es)?)\s*(?:number|no\.?|#)\s*", r"\1 ", s)
    s = re.sub(r"#\s*(\d)", r"\1", s)
    s = re.sub(rf"\bthe ({_ORDINAL_WORD}) box\b", lambda m: f"box {_ORDINALS[m.group(1)]}", s)
    while _NUMBER_AFTER_BOX.search(s):
        s = _NUMBER_AFTER_BOX.sub(lambda m: f"{m.group(1)} {_NUMBERS[m.group(2)]}", s)
    s = re.sub(r"\b(box(?:es)?) (\d+)(?:st|nd|rd|th)\b", r"\1 \2", s)
    s = re.sub(r"(?<!box )(?<!and )(?<!or )\b1 (of (?:the|these|those) boxes)\b", r"one \1", s)
    s = re.sub(r"\b(?:the )?likeliest\b", "the most likely", s)
    s = re.sub(r"\b(most|least) probable\b", r"\1 likely", s)
    s = _FILLERS.sub("", s)
    s = re.sub(r"\s+,", ",", s)
    return re.sub(r"\s+", " ", s).strip(" ,")

