"""Reuse by conversation: within a conversation, across conversations, and what
session-affine routing over N replicas keeps of it.

The cached tokens are analyze's (``Analyzer``: unlimited cache, arrival order, whole
pages). They split in two:

- **within-conversation**: what each request would hit were its conversation alone with a
  cache of its own (the longest common prefix with the conversation's earlier requests);
- **across-conversation**: the rest of the total (a system prompt, tools or documents
  shared with other conversations).

A conversation is the record's session id (``Request.session``: ``session_id``, OTel's
``gen_ai.conversation.id``, Langfuse's ``sessionId``, ...) when it has one. A request
without one joins the conversation of the longest earlier prompt it strictly extends (the
latest such request if several prompts are equal): a chat turn re-sends the whole
conversation so far, and the previous turn's prompt ends in the assistant's header, so it
is a prefix of the next turn's prompt and of no other conversation's. A request that
extends no earlier prompt starts a conversation of its own. A request never chains to an
identical earlier prompt: a repeat is not a new turn. Conversations live in one cache
namespace (a block-hash file, a set of cache keys): requests in two namespaces never share
a cache, so they cannot continue each other.

Session affinity: each conversation hashed (blake2b of its session id, or of its first
request's position for a detected one: fixed, not Python's salted ``hash``) to one of N
replicas, each with its own unlimited cache under the same rule. Within-conversation hits
survive by construction (every earlier turn sits on the same replica); across-conversation
hits survive only where the replica has seen the shared prefix.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, field

from advisor.index.analyze import Analyzer
from advisor.index.radix import Node, RadixTree, free_trees
from advisor.ingest.ids import pack
from advisor.ingest.pipeline import Sequence

DEFAULT_REPLICAS = (2, 4, 8)


def replica_of(label: str, replicas: int) -> int:
    """The replica a conversation lands on: a fixed hash of its label, the same on every run
    and every machine (Python's ``hash`` of a string is salted per process)."""
    digest = hashlib.blake2b(label.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % replicas


def label_of(namespace: str, session: str | None, first: int = 0) -> str:
    """What the router hashes for a conversation: its session id, or for a detected one the
    position of its first request (a stand-in for the session id it would need)."""
    if session is not None:
        return f"session\0{namespace}\0{session}"
    return f"request\0{namespace}\0{first}"


@dataclass(frozen=True)
class Affinity:
    """The hits session-affine routing keeps over ``replicas`` unlimited caches."""

    replicas: int
    prompt_tokens: int
    cached_tokens: int  # on the replicas, each request on its conversation's replica
    shared_cached_tokens: int  # one cache for all the traffic (analyze's figure)
    within_tokens: int  # kept by construction

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def kept(self) -> float:
        """Share of the shared cache's hits kept (1 when there were none to lose)."""
        return self.cached_tokens / self.shared_cached_tokens if self.shared_cached_tokens else 1.0

    @property
    def across_kept_tokens(self) -> int:
        return self.cached_tokens - self.within_tokens

    def to_dict(self) -> dict[str, float | int]:
        return {"replicas": self.replicas, "cached_tokens": self.cached_tokens,
                "hit_rate": round(self.hit_rate, 6), "kept": round(self.kept, 6),
                "across_conversation_kept_tokens": self.across_kept_tokens}


@dataclass
class ConversationSplit:
    page_size: int
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0  # analyze's cached tokens: one shared unlimited cache
    within_tokens: int = 0
    session_conversations: int = 0  # identified by the records' session ids
    detected_conversations: int = 0  # started without a session id, continued by a later request
    single_conversations: int = 0  # one request without a session id that nothing continued
    session_requests: int = 0  # requests carrying a session id
    continued_requests: int = 0  # requests without one that continued an earlier prompt
    affinity: list[Affinity] = field(default_factory=list)

    @property
    def conversations(self) -> int:
        return self.session_conversations + self.detected_conversations + self.single_conversations

    @property
    def across_tokens(self) -> int:
        return self.cached_tokens - self.within_tokens

    @property
    def mean_turns(self) -> float:
        return self.requests / self.conversations if self.conversations else 0.0

    @property
    def source(self) -> str:
        """Where the conversations came from: the records' session ids, detection, or both."""
        if self.session_requests == self.requests:
            return "session ids"
        return "detected continuation" if self.session_requests == 0 else "session ids and detected continuation"

    def rate(self, tokens: int) -> float:
        return tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "conversations": self.conversations,
            "source": self.source,
            "session_conversations": self.session_conversations,
            "detected_conversations": self.detected_conversations,
            "single_turn_conversations": self.single_conversations,
            "mean_turns": round(self.mean_turns, 6),
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "hit_rate": round(self.rate(self.cached_tokens), 6),
            "within_conversation_tokens": self.within_tokens,
            "within_conversation_hit_rate": round(self.rate(self.within_tokens), 6),
            "across_conversation_tokens": self.across_tokens,
            "across_conversation_hit_rate": round(self.rate(self.across_tokens), 6),
            "affinity": [a.to_dict() for a in self.affinity],
        }


@dataclass
class _Conversation:
    label: str  # what the router hashes
    from_session: bool
    turns: int = 0
    # The conversation's own cache: the index of its only request until a second one comes
    # (most conversations of single-shot traffic have one request, and a tree each would copy
    # every prompt), then a tree of its requests.
    own: int | RadixTree | None = None


class _Splitter:
    """Pass one: analyze's cached tokens, each request's conversation, the within hits."""

    def __init__(self, seqs: SequenceOf[Sequence], page_size: int) -> None:
        self.seqs = seqs
        self.page_size = page_size
        self.shared = Analyzer(page_size)
        self.split = ConversationSplit(page_size=page_size)
        self.conversations: list[_Conversation] = []
        self.conversation_of = array("q")
        self.sessions: dict[tuple[str, str], int] = {}
        # Continuation is read on token-exact trees: the shared cache's own when it stores
        # every token (page 1, or block hashes, whose tree is per block), else one of page 1,
        # so a page boundary never hides where an earlier prompt ended.
        self.exact: dict[str, RadixTree] = {}
        # The latest request whose whole prompt ends at the end of a node. A node's end never
        # moves: a split gives the upper part to a new node and the tree here never evicts.
        self.ends: dict[Node, int] = {}

    def _exact_tree(self, seq: Sequence) -> RadixTree:
        if self.page_size == 1 or seq.unit != 1:
            return self.shared.tree_for(seq.namespace, seq.unit)
        tree = self.exact.get(seq.namespace)
        if tree is None:
            tree = self.exact[seq.namespace] = RadixTree(1)
        return tree

    def _continues(self, node: Node, root: Node, length: int) -> int | None:
        """The latest request of the longest earlier prompt ending on the matched path and
        shorter than ``length`` ids (a strict prefix: the path is common to both)."""
        while node is not root:
            j = self.ends.get(node)
            if j is not None and len(self.seqs[j].ids) < length:
                return j
            assert node.parent is not None
            node = node.parent
        return None

    def _conversation(self, i: int, seq: Sequence, tree: RadixTree, key: bytes) -> int:
        session = seq.request.session
        if session is not None:
            self.split.session_requests += 1
            c = self.sessions.get((seq.namespace, session))
            if c is None:
                c = self.sessions[(seq.namespace, session)] = len(self.conversations)
                self.conversations.append(_Conversation(label_of(seq.namespace, session), True))
            return c
        node, _ = tree.match_node(key)
        j = self._continues(node, tree.root, len(seq.ids))
        if j is not None:
            self.split.continued_requests += 1
            return self.conversation_of[j]
        self.conversations.append(_Conversation(label_of(seq.namespace, None, i), False))
        return len(self.conversations) - 1

    def _within(self, conv: _Conversation, i: int, seq: Sequence, key: bytes) -> int:
        own = conv.own
        if own is None:
            conv.own = i
            return 0
        if isinstance(own, int):
            own_tree = RadixTree(self.page_size if seq.unit == 1 else 1)
            own_tree.insert(pack(self.seqs[own].ids))
            conv.own = own = own_tree
        return self.shared.to_tokens(own.insert(key), seq.prompt_tokens, seq.unit)

    def add(self, i: int, seq: Sequence) -> None:
        key = pack(seq.ids)
        tree = self._exact_tree(seq)
        c = self._conversation(i, seq, tree, key)
        self.conversation_of.append(c)
        conv = self.conversations[c]
        conv.turns += 1
        split = self.split
        split.requests += 1
        split.prompt_tokens += seq.prompt_tokens
        split.cached_tokens += self.shared.add_ids(seq.namespace, key, seq.prompt_tokens, seq.unit, None)
        split.within_tokens += self._within(conv, i, seq, key)
        if tree is not self.shared.result.trees.get(seq.namespace):
            tree.insert(key)
        end, depth = tree.match_node(key)
        if depth:
            self.ends[end] = i

    def finish(self) -> ConversationSplit:
        split = self.split
        for conv in self.conversations:
            if conv.from_session:
                split.session_conversations += 1
            elif conv.turns > 1:
                split.detected_conversations += 1
            else:
                split.single_conversations += 1
        return split


def affinity(seqs: SequenceOf[Sequence], conversation_of: SequenceOf[int], labels: SequenceOf[str],
             replicas: int, page_size: int = 1, shared_cached_tokens: int = 0, within_tokens: int = 0) -> Affinity:
    """The hits of ``seqs`` with each conversation's requests on the replica its label hashes to."""
    if replicas < 1:
        raise ValueError("replicas must be at least 1")
    caches = [Analyzer(page_size) for _ in range(replicas)]
    where = [replica_of(label, replicas) for label in labels]
    cached = 0
    prompt = 0
    for seq, c in zip(seqs, conversation_of):
        cached += caches[where[c]].add_ids(seq.namespace, seq.ids, seq.prompt_tokens, seq.unit, None)
        prompt += seq.prompt_tokens
    return Affinity(replicas, prompt, cached, shared_cached_tokens, within_tokens)


@dataclass(frozen=True)
class Assignment:
    """Each request's conversation (``conversation_of[i]``, an index into ``labels``, which
    are what a router hashes) and the split they give."""

    split: ConversationSplit
    conversation_of: array
    labels: list[str]


def assign(seqs: SequenceOf[Sequence], page_size: int = 1) -> Assignment:
    """One pass over ``seqs``: the conversations and the split of the cached tokens."""
    splitter = _Splitter(seqs, page_size)
    for i, seq in enumerate(seqs):
        splitter.add(i, seq)
    return Assignment(splitter.finish(), splitter.conversation_of, [c.label for c in splitter.conversations])


def measure(seqs: SequenceOf[Sequence], page_size: int = 1,
            replicas: Iterable[int] = DEFAULT_REPLICAS) -> ConversationSplit:
    """The split of ``seqs``'s cached tokens by conversation, and the affinity at each
    replica count: each count one more pass, its trees freed before the next (the shared
    cache's and the conversations' trees are gone by then: the peak is one set)."""
    found = assign(seqs, page_size)
    split = found.split
    tokens = sum(s.prompt_tokens for s in seqs)  # what each pass's trees held at most
    free_trees(tokens)
    for n in replicas:
        split.affinity.append(affinity(seqs, found.conversation_of, found.labels, n, page_size, split.cached_tokens,
                                       split.within_tokens))
        free_trees(tokens)
    return split
