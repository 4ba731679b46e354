"""The keys and what they do."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from agentdex.tui.screens.listing import TAB_TITLES, TABS

HELP = f"""\
# agentdex

A local catalogue of agent apps. Everything shown comes from the catalogue file; crawled
text is shown as plain text, never as markup.

## Everywhere

| key | does |
| --- | --- |
| `ctrl+p` | command palette: jump to an origin, open events, crawl, help |
| `ctrl+n` | crawl new origins (typed as hosts or https URLs) |
| `e` | the newest changes across the catalogue |
| `?` | this help |
| `q` | quit |

## Catalogue

| key | does |
| --- | --- |
| `/` | search names, one-liners, descriptions, tags and origins as you type (pasting onto the table searches too) |
| `tab` / `shift+tab` | move between the search box, the filters (format, status, category, pricing, auth, MCP, failing checks) and the table |
| `escape` | back from the search box or a filter to the table |
| `enter` | open the listing under the cursor (in the search box: the highlighted match) |
| `s` / `S` | sort by the next column / reverse the order (or click a header) |
| `x` | clear the search and every filter |
| `ctrl+home` / `ctrl+end` | first / last listing |

## Listing

| key | does |
| --- | --- |
| `1`…`{len(TABS)}` | {", ".join(TAB_TITLES.get(tab, tab.title()) for tab in TABS)} |
| `ctrl+t` | re-verify now (checks every claim; the screen reloads when done) |
| `ctrl+r` | re-crawl now |
| `y` | copy the chosen host's install plan: to the terminal's clipboard (OSC 52, which some terminals ignore) and to a system clipboard tool (wl-copy, xclip, xsel, pbcopy) when one is installed |
| `ctrl+s` | write that plan to a file in the working directory (`ORIGIN-HOST-plan.txt`) |
| `f` | send feedback to the app's developer (only when you confirm) |
| `escape` | back |

Crawling and verifying reach the network, so they are control keys: typing never
starts them. Crawls and verifications run in the background: the line above the footer shows their
progress, and the screens reload when they finish.
"""


class HelpScreen(ModalScreen):
    """Keys and what they do."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", priority=True)]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="dialog wide"):
            yield Markdown(HELP)
