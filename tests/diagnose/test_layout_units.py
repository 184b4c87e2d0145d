"""The pieces of the tools-layout measurement on hand-made token sequences.

``tools_first`` moves a delimited block to before the first user-turn opener; the replay
(``truth_test``) is checked against the brute-force longest-common-prefix oracle on
random sequences, so the figure TR103 reports is the oracle's on the moved requests.
"""

from __future__ import annotations

import random

from advisor.diagnose.layout import ToolsBlock, _edges, tools_first, truth_test
from advisor.ingest.ids import pack, unpack
from tests.diagnose.heldout import oracle

BOS, TOOLS, END_TOOLS, INST, END_INST, EOS = 1, 5, 6, 3, 4, 2
BLOCK = ToolsBlock(head=pack([TOOLS]), tail=pack([END_TOOLS]), opener=pack([INST]))


def _turns(history: list[list[int]], tools: list[int], last: list[int]) -> list[int]:
    """A late-layout rendering: the history's turns, then the tools, then the last turn."""
    out = [BOS]
    for user, answer in zip(history[::2], history[1::2]):
        out += [INST, *user, END_INST, *answer, EOS]
    return out + [TOOLS, *tools, END_TOOLS, INST, *last, END_INST]


def test_the_block_moves_to_the_first_turn_opener() -> None:
    data = pack(_turns([[100, 101], [200]], [50, 51, 52], [300]))
    moved = unpack(tools_first(data, [BLOCK]))
    assert moved == [BOS, TOOLS, 50, 51, 52, END_TOOLS, INST, 100, 101, END_INST, 200, EOS, INST, 300, END_INST]


def test_a_first_turn_and_a_request_without_tools_stay_as_they_are() -> None:
    first = pack(_turns([], [50, 51], [300]))
    assert tools_first(first, [BLOCK]) is first
    plain = pack([BOS, INST, 100, END_INST, 200, EOS, INST, 300, END_INST])
    assert tools_first(plain, [BLOCK]) is plain


def test_ids_that_only_look_like_a_tag_inside_another_id_do_not_match() -> None:
    # 5 << 8 holds the byte 5 but is no id 5: the search is by whole ids.
    data = pack([BOS, INST, 5 << 8, END_INST, 7, EOS, INST, 300, END_INST])
    assert tools_first(data, [BLOCK]) is data


def test_edges_are_the_markup_where_there_is_some() -> None:
    specials = frozenset({TOOLS, END_TOOLS})
    assert _edges([TOOLS, 9, 9, 9, 9, 9, 9, 9, 9, 9, END_TOOLS], specials) == ([TOOLS], [END_TOOLS])
    plain = list(range(100, 120))
    assert _edges(plain, frozenset()) == (plain[:8], plain[-8:])


def test_the_replay_is_the_brute_force_oracle_both_ways() -> None:
    rng = random.Random(7)
    for _ in range(20):
        tools = [rng.randint(50, 60) for _ in range(rng.randint(3, 12))]
        requests = []
        for _ in range(rng.randint(2, 6)):
            history: list[list[int]] = []
            for _turn in range(rng.randint(1, 5)):
                last = [rng.randint(100, 120) for _ in range(rng.randint(1, 6))]
                requests.append(pack(_turns(history, tools, last)))
                history += [last, [rng.randint(200, 220) for _ in range(rng.randint(1, 6))]]
        rng.shuffle(requests)
        t = truth_test(requests, [BLOCK])
        assert (t.cached, t.tokens) == oracle(unpack(r) for r in requests)
        assert t.cached_tools_first == oracle(unpack(tools_first(r, [BLOCK])) for r in requests)[0]
        assert t.moved == sum(tools_first(r, [BLOCK]) is not r for r in requests)
