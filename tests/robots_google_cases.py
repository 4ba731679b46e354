"""The decision cases of Google's robots.txt test suite, ported to data.

Source: github.com/google/robotstxt, file ``robots_test.cc``, commit
22b355ff855419e6a3ff8ff09c0ad7fdb17116f9 (see ``tests/SOURCES-robots.md``). Every
``EXPECT_TRUE/EXPECT_FALSE(IsUserAgentAllowed(robotstxt, useragent, url))`` of that file is
one :class:`Case` here, in file order, named after its ``TEST``. The tests of parser
statistics (line counting, byte order marks, sitemaps) and of Google's internal helpers
(``IsValidUserAgentToObey``, ``GetPathParamsQuery``, ``MaybeEscapePattern``) decide no
URL and are not ported.

``deviation`` names a Google behaviour agentdex does not share (RFC 9309 does not ask for
it); each one is explained in ``docs/robots.md``, and the test expects the opposite answer.
"""

from __future__ import annotations

from dataclasses import dataclass

COMMIT = "22b355ff855419e6a3ff8ff09c0ad7fdb17116f9"


@dataclass(frozen=True)
class Case:
    """One decision: is ``url`` allowed for ``agent`` under ``robotstxt``?"""

    test: str
    robotstxt: str
    agent: str
    url: str
    allowed: bool
    deviation: str | None = None


def _cases(test: str, robotstxt: str, *decisions: tuple) -> list[Case]:
    """``decisions``: ``(agent, url, allowed)`` or ``(agent, url, allowed, deviation)``."""
    return [Case(test, robotstxt, *d) for d in decisions]


SYSTEM = "user-agent: FooBot\ndisallow: /\n"
GROUPS = (
    "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\n"
    "disallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\n"
    "allow: /z/\ndisallow: /\n"
)
UA_UPPER = "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n"
UA_LOWER = "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n"
UA_CAMEL = "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n"
FISH = "user-agent: FooBot\ndisallow: /\nallow: /fish\n"
FISH_STAR = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n"
FISH_SLASH = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n"
PHP = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n"
PHP_END = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n"

# Google cuts a line after 8 * 2083 bytes (GoogleOnly_LineTooLong builds these).
_MAX_LINE = 2083 * 8
_LONG_DISALLOW = "/x/" + "a" * (_MAX_LINE - len("disallow: ") + 1 - 3)
_LONG_A = "/x/" + "a" * (_MAX_LINE - len("allow: ") + 1 - 3)
_LONG_B = "/x/" + "b" * (_MAX_LINE - len("allow: ") + 1 - 3)
LINE_TOO_LONG_1 = f"user-agent: FooBot\ndisallow: {_LONG_DISALLOW}/qux\n"
LINE_TOO_LONG_2 = f"user-agent: FooBot\ndisallow: /\nallow: {_LONG_A}/qux\nallow: {_LONG_B}/qux\n"

ENCODED = "a URL's non-ASCII octets are percent-encoded before matching (RFC 9309 2.2.2)"
UNRESERVED = "percent-encoded unreserved characters are decoded before matching (RFC 3986 6.2.2.2)"
LINE_CUT = "lines cut after 16,664 bytes (Google-only; RFC 9309 sets no line limit)"

CASES: list[Case] = [
    *_cases("GoogleOnly_SystemTest", "", ("FooBot", "", True), ("", "", True)),
    *_cases("GoogleOnly_SystemTest", SYSTEM, ("", "", True), ("FooBot", "", False)),
    *_cases("ID_LineSyntax_Line", "user-agent: FooBot\ndisallow: /\n", ("FooBot", "http://foo.bar/x/y", False)),
    *_cases("ID_LineSyntax_Line", "foo: FooBot\nbar: /\n", ("FooBot", "http://foo.bar/x/y", True)),
    *_cases("ID_LineSyntax_Line", "user-agent FooBot\ndisallow /\n", ("FooBot", "http://foo.bar/x/y", False)),
    *_cases(
        "ID_LineSyntax_Groups",
        GROUPS,
        ("FooBot", "http://foo.bar/x/b", True),
        ("FooBot", "http://foo.bar/z/d", True),
        ("FooBot", "http://foo.bar/y/c", False),
        ("BarBot", "http://foo.bar/y/c", True),
        ("BarBot", "http://foo.bar/w/a", True),
        ("BarBot", "http://foo.bar/z/d", False),
        ("BazBot", "http://foo.bar/z/d", True),
        ("FooBot", "http://foo.bar/foo/bar/", False),
        ("BarBot", "http://foo.bar/foo/bar/", False),
        ("BazBot", "http://foo.bar/foo/bar/", False),
    ),
    *_cases(
        "ID_LineSyntax_Groups_OtherRules",
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
        ("FooBot", "http://foo.bar/", False),
        ("BarBot", "http://foo.bar/", False),
    ),
    *_cases(
        "ID_LineSyntax_Groups_OtherRules",
        "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
        ("FooBot", "http://foo.bar/", False),
        ("BarBot", "http://foo.bar/", False),
    ),
    *[
        c
        for text in (
            "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n",
            "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
            "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
        )
        for c in _cases(
            "ID_REPLineNamesCaseInsensitive",
            text,
            ("FooBot", "http://foo.bar/x/y", True),
            ("FooBot", "http://foo.bar/a/b", False),
        )
    ],
    *[
        c
        for agent in ("Foo", "foo")
        for text in (UA_UPPER, UA_LOWER, UA_CAMEL)
        for c in _cases(
            "ID_UserAgentValueCaseInsensitive",
            text,
            (agent, "http://foo.bar/x/y", True),
            (agent, "http://foo.bar/a/b", False),
        )
    ],
    *_cases(
        "GoogleOnly_AcceptUserAgentUpToFirstSpace",
        "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n",
        ("Foo", "http://foo.bar/x/y", True),
        ("Foo Bar", "http://foo.bar/x/y", False),
    ),
    *_cases("ID_GlobalGroups_Secondary", "", ("FooBot", "http://foo.bar/x/y", True)),
    *_cases(
        "ID_GlobalGroups_Secondary",
        "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n",
        ("FooBot", "http://foo.bar/x/y", False),
        ("BarBot", "http://foo.bar/x/y", True),
    ),
    *_cases(
        "ID_GlobalGroups_Secondary",
        "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n",
        ("QuxBot", "http://foo.bar/x/y", True),
    ),
    *_cases(
        "ID_AllowDisallow_Value_CaseSensitive",
        "user-agent: FooBot\ndisallow: /x/\n",
        ("FooBot", "http://foo.bar/x/y", False),
    ),
    *_cases(
        "ID_AllowDisallow_Value_CaseSensitive",
        "user-agent: FooBot\ndisallow: /X/\n",
        ("FooBot", "http://foo.bar/x/y", True),
    ),
    *_cases(
        "ID_LongestMatch",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n",
        ("FooBot", "http://foo.bar/x/page.html", False),
    ),
    *_cases(
        "ID_LongestMatch",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        ("FooBot", "http://foo.bar/x/page.html", True),
        ("FooBot", "http://foo.bar/x/", False),
    ),
    *_cases(
        "ID_LongestMatch", "user-agent: FooBot\ndisallow: \nallow: \n", ("FooBot", "http://foo.bar/x/page.html", True)
    ),
    *_cases(
        "ID_LongestMatch", "user-agent: FooBot\ndisallow: /\nallow: /\n", ("FooBot", "http://foo.bar/x/page.html", True)
    ),
    *_cases(
        "ID_LongestMatch",
        "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
        ("FooBot", "http://foo.bar/x", False),
        ("FooBot", "http://foo.bar/x/", True),
    ),
    *_cases(
        "ID_LongestMatch",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
        ("FooBot", "http://foo.bar/x/page.html", True),
    ),
    *_cases(
        "ID_LongestMatch",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        ("FooBot", "http://foo.bar/page.html", False),
        ("FooBot", "http://foo.bar/page", True),
    ),
    *_cases(
        "ID_LongestMatch",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        ("FooBot", "http://foo.bar/x/page.html", True),
        ("FooBot", "http://foo.bar/x/y.html", False),
    ),
    *_cases(
        "ID_LongestMatch",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        ("FooBot", "http://foo.bar/x/page", True),
        ("FooBot", "http://foo.bar/y/page", False),
    ),
    *_cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
        ("FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", True),
    ),
    *_cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        ("FooBot", "http://foo.bar/foo/bar/%E3%83%84", True),
        ("FooBot", "http://foo.bar/foo/bar/ツ", False, ENCODED),
    ),
    *_cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        ("FooBot", "http://foo.bar/foo/bar/%E3%83%84", True),
        ("FooBot", "http://foo.bar/foo/bar/ツ", False, ENCODED),
    ),
    *_cases(
        "ID_Encoding",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
        ("FooBot", "http://foo.bar/foo/bar/baz", False, UNRESERVED),
        ("FooBot", "http://foo.bar/foo/bar/%62%61%7A", True),
    ),
    *_cases(
        "ID_SpecialCharacters",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        ("FooBot", "http://foo.bar/foo/bar/quz", False),
        ("FooBot", "http://foo.bar/foo/quz", True),
        ("FooBot", "http://foo.bar/foo//quz", True),
        ("FooBot", "http://foo.bar/foo/bax/quz", True),
    ),
    *_cases(
        "ID_SpecialCharacters",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        ("FooBot", "http://foo.bar/foo/bar", False),
        ("FooBot", "http://foo.bar/foo/bar/qux", True),
        ("FooBot", "http://foo.bar/foo/bar/", True),
        ("FooBot", "http://foo.bar/foo/bar/baz", True),
    ),
    *_cases(
        "ID_SpecialCharacters",
        "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n",
        ("FooBot", "http://foo.bar/foo/bar", True),
        ("FooBot", "http://foo.bar/foo/quz", False),
    ),
    *_cases(
        "GoogleOnly_IndexHTMLisDirectory",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        ("foobot", "http://foo.com/allowed-slash/", True),
        ("foobot", "http://foo.com/allowed-slash/index.htm", False),
        ("foobot", "http://foo.com/allowed-slash/index.html", True),
        ("foobot", "http://foo.com/anyother-url", False),
    ),
    *_cases(
        "GoogleOnly_LineTooLong",
        LINE_TOO_LONG_1,
        ("FooBot", "http://foo.bar/fux", True),
        ("FooBot", f"http://foo.bar{_LONG_DISALLOW}/fux", False, LINE_CUT),
    ),
    *_cases(
        "GoogleOnly_LineTooLong",
        LINE_TOO_LONG_2,
        ("FooBot", "http://foo.bar/", False),
        ("FooBot", f"http://foo.bar{_LONG_A}/qux", True),
        ("FooBot", f"http://foo.bar{_LONG_B}/fux", True, LINE_CUT),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        FISH,
        ("FooBot", "http://foo.bar/bar", False),
        ("FooBot", "http://foo.bar/fish", True),
        ("FooBot", "http://foo.bar/fish.html", True),
        ("FooBot", "http://foo.bar/fish/salmon.html", True),
        ("FooBot", "http://foo.bar/fishheads", True),
        ("FooBot", "http://foo.bar/fishheads/yummy.html", True),
        ("FooBot", "http://foo.bar/fish.html?id=anything", True),
        ("FooBot", "http://foo.bar/Fish.asp", False),
        ("FooBot", "http://foo.bar/catfish", False),
        ("FooBot", "http://foo.bar/?id=fish", False),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        FISH_STAR,
        ("FooBot", "http://foo.bar/bar", False),
        ("FooBot", "http://foo.bar/fish", True),
        ("FooBot", "http://foo.bar/fish.html", True),
        ("FooBot", "http://foo.bar/fish/salmon.html", True),
        ("FooBot", "http://foo.bar/fishheads", True),
        ("FooBot", "http://foo.bar/fishheads/yummy.html", True),
        ("FooBot", "http://foo.bar/fish.html?id=anything", True),
        ("FooBot", "http://foo.bar/Fish.bar", False),
        ("FooBot", "http://foo.bar/catfish", False),
        ("FooBot", "http://foo.bar/?id=fish", False),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        FISH_SLASH,
        ("FooBot", "http://foo.bar/bar", False),
        ("FooBot", "http://foo.bar/fish/", True),
        ("FooBot", "http://foo.bar/fish/salmon", True),
        ("FooBot", "http://foo.bar/fish/?salmon", True),
        ("FooBot", "http://foo.bar/fish/salmon.html", True),
        ("FooBot", "http://foo.bar/fish/?id=anything", True),
        ("FooBot", "http://foo.bar/fish", False),
        ("FooBot", "http://foo.bar/fish.html", False),
        ("FooBot", "http://foo.bar/Fish/Salmon.html", False),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        PHP,
        ("FooBot", "http://foo.bar/bar", False),
        ("FooBot", "http://foo.bar/filename.php", True),
        ("FooBot", "http://foo.bar/folder/filename.php", True),
        ("FooBot", "http://foo.bar/folder/filename.php?parameters", True),
        ("FooBot", "http://foo.bar//folder/any.php.file.html", True),
        ("FooBot", "http://foo.bar/filename.php/", True),
        ("FooBot", "http://foo.bar/index?f=filename.php/", True),
        ("FooBot", "http://foo.bar/php/", False),
        ("FooBot", "http://foo.bar/index?php", False),
        ("FooBot", "http://foo.bar/windows.PHP", False),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        PHP_END,
        ("FooBot", "http://foo.bar/bar", False),
        ("FooBot", "http://foo.bar/filename.php", True),
        ("FooBot", "http://foo.bar/folder/filename.php", True),
        ("FooBot", "http://foo.bar/filename.php?parameters", False),
        ("FooBot", "http://foo.bar/filename.php/", False),
        ("FooBot", "http://foo.bar/filename.php5", False),
        ("FooBot", "http://foo.bar/php/", False),
        ("FooBot", "http://foo.bar/filename?php", False),
        ("FooBot", "http://foo.bar/aaaphpaaa", False),
        ("FooBot", "http://foo.bar//windows.PHP", False),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n",
        ("FooBot", "http://foo.bar/bar", False),
        ("FooBot", "http://foo.bar/fish.php", True),
        ("FooBot", "http://foo.bar/fishheads/catfish.php?parameters", True),
        ("FooBot", "http://foo.bar/Fish.PHP", False),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /p\ndisallow: /\n",
        ("FooBot", "http://example.com/page", True),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n",
        ("FooBot", "http://example.com/folder/page", True),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
        ("FooBot", "http://example.com/page.htm", False),
    ),
    *_cases(
        "GoogleOnly_DocumentationChecks",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        ("FooBot", "http://example.com/", True),
        ("FooBot", "http://example.com/page.html", False),
    ),
]
