"""LibreOffice Calc, headless, as the spreadsheet the export tests open files in; and a reader for its sheets.

Without `soffice` the tests that use it skip, unless TOPIC_EXPLORER_REQUIRE_BROWSER=1 (CI) makes them fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

SOFFICE = os.environ.get("TOPIC_EXPLORER_SOFFICE") or shutil.which("soffice") or "/usr/bin/soffice"
# Calc's text import at its most dangerous: comma, tab and semicolon separate cells, UTF-8, formulas
# evaluated, special numbers detected, spaces trimmed (so " =1+1" would start with "=").
# Tokens: separators, quote, charset, first line, column formats, language, quoted-as-text,
# detect special numbers, (export options x2), trim spaces, (sheet), evaluate formulas.
TEXT_IMPORT = "CSV:44/9/59,34,76,1,,0,false,true,false,false,true,-1,true"
NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
}


@dataclass(frozen=True)
class Cell:
    kind: str  # Calc's value type: "string", "float", "boolean", ... ("" for an empty cell)
    text: str  # what the cell shows
    formula: str | None  # set when Calc made the cell a formula


def convert(files: list[Path], out: Path, profile: Path, infilter: str | None = None) -> None:
    """Open `files` in Calc and save each as .ods in `out`; one soffice run for them all."""
    command = [SOFFICE, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore"]
    if infilter:
        command.append(f"--infilter={infilter}")
    command += ["--convert-to", "ods", "--outdir", str(out), *map(str, files)]
    subprocess.run(command, check=True, capture_output=True, timeout=300)


def sheet(ods: Path) -> list[list[Cell]]:
    """The first sheet's rows of cells, repeated rows and cells expanded, trailing empty ones dropped."""
    root = ElementTree.fromstring(zipfile.ZipFile(ods).read("content.xml"))
    table = root.find(".//table:table", NS)
    rows = []
    for row in table.iter(f"{{{NS['table']}}}table-row"):
        cells = []
        for cell in row:
            repeat = int(cell.get(f"{{{NS['table']}}}number-columns-repeated", "1"))
            cells += [_cell(cell)] * min(repeat, 1000)
        while cells and cells[-1].kind == "" and not cells[-1].text:
            cells.pop()
        repeat = int(row.get(f"{{{NS['table']}}}number-rows-repeated", "1"))
        rows += [cells] * (min(repeat, 1000) if cells else 0)
    return rows


def _cell(element: ElementTree.Element) -> Cell:
    paragraphs = ["".join(_text(p)) for p in element.findall("text:p", NS)]
    return Cell(
        kind=element.get(f"{{{NS['office']}}}value-type", ""),
        text="\n".join(paragraphs),
        formula=element.get(f"{{{NS['table']}}}formula"),
    )


def _text(element: ElementTree.Element) -> list[str]:
    parts = [element.text or ""]
    for child in element:
        tag = child.tag.split("}")[1]
        if tag == "s":
            parts.append(" " * int(child.get(f"{{{NS['text']}}}c", "1")))
        elif tag == "tab":
            parts.append("\t")
        elif tag == "line-break":
            parts.append("\n")
        else:
            parts += _text(child)
        parts.append(child.tail or "")
    return parts
