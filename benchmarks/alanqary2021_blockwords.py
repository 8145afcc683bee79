"""Block-Words of Alanqary et al. (2021): elot's agent models fitted on the dev split.

    python benchmarks/alanqary2021_blockwords.py --data ../shared/alanqary2021/block-words -o predictions.csv

As benchmarks/alanqary2021.py, with one more family: goal noise over the candidate words'
anagrams (the goal's objects permuted), the authors' account of misspellings.
"""

from alanqary_common import main

if __name__ == "__main__":
    raise SystemExit(main("Block-Words (Alanqary et al. 2021)", "block-words", confusions=True,
                          targets={"Boltzmann >= birl": ("boltzmann", 0.773),
                                   "best > ap": ("best", 0.833), "best > apg": ("best", 0.893)}))
