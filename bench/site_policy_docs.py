"""Copy GitHub's site policies (CC0) as plain Markdown, for `citeguard synthesize`.

    git clone https://github.com/github/site-policy        # commit 12992597c5d9 was used
    python bench/site_policy_docs.py site-policy OUT [--list docs/results/synthetic-policy-docs.txt]

Policies of kinds other than contracts (privacy statements, terms of service, community
rules, takedown guides) in plain language, free of any licence condition (CC0 1.0), so
weights trained on questions written for them can ship. Each listed file is copied to
OUT/NAME.md without what is not the policy's text: the YAML front matter, link targets
and square brackets ("[text](url)" becomes "text", "privacy[at]github" "privacyatgithub"),
bold markers and the site's template tags.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

DEFAULT_LIST = Path("docs/results/synthetic-policy-docs.txt")
PRODUCT_NAME_TAG = "{% data variables.product.prodname_dotcom %}"


def plain_policy(markdown: str) -> str:
    """The policy's text without front matter, link targets, square brackets (an image's
    "![" stays), bold markers or template tags."""
    markdown = re.sub(r"\]\([^)\n]*\)", "]", markdown)
    markdown = re.sub(r"^\[|([^!\n])\[", r"\1", markdown, flags=re.MULTILINE)
    markdown = markdown.replace("]", "")
    if markdown.startswith("---"):
        end = markdown.find("\n---", 3)
        if end != -1:
            markdown = markdown[end + 4 :]
    markdown = markdown.replace("**", "").replace(PRODUCT_NAME_TAG, "GitHub")
    markdown = re.sub(r"\{%.*?%\}", "", markdown)
    return markdown.strip() + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", type=Path, help="a checkout of github/site-policy")
    parser.add_argument("out", type=Path, help="folder to write the policies into")
    parser.add_argument("--list", type=Path, default=DEFAULT_LIST, help="paths to copy")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    paths = [line.strip() for line in args.list.read_text().splitlines() if line.strip()]
    for relative in paths:
        source = args.repository / relative
        (args.out / source.name).write_text(plain_policy(source.read_text(encoding="utf-8")))
    print(f"{len(paths)} policies written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
