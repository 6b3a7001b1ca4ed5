"""Proof-number search: prove that one side wins by force.

The tree lives in preallocated arrays (node 0 is the root); positions are not stored but
replayed from the root along the path to the node being expanded, on the stack rows
above the root.  A node where the prover is to move is an OR node (one winning child is
enough), the others are AND nodes (every reply must lose).  A repetition of a position on
the path, a draw, or running past the depth cap counts as "not a win" for the prover, so a
proof found here is sound; transpositions are not merged.

The tree is a `ProofTree` (`new_proof_tree`); state int64[STATE_SIZE] (nodes used);
control int64 (the search's stop flag, read atomically).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..jit.modes import kernel
from ..rules.bitboards import P_SIDE
from ..rules.movegen import legal_moves, make_move
from ..rules.status import drawn_by_rule, game_status, is_repetition
from .state import CONTROL_STOP, atomic_load

INFINITE = np.int64(1 << 40)
MAX_DEPTH = 80
PROVEN, DISPROVEN, UNKNOWN = 1, -1, 0


class ProofTree(NamedTuple):
    """The proof tree's nodes, node 0 the root: parent, first child and next sibling (-1:
    none), the move into the node (int32 each), and its proof and disproof numbers (int64)."""

    parent: np.ndarray
    first_child: np.ndarray
    next_sibling: np.ndarray
    move: np.ndarray
    proof: np.ndarray
    disproof: np.ndarray


def new_proof_tree(capacity: int) -> ProofTree:
    """An empty tree of `capacity` nodes (32 bytes a node)."""
    return ProofTree(*(np.zeros(capacity, np.int32) for _ in range(4)),
                     np.zeros(capacity, np.int64), np.zeros(capacity, np.int64))


def proven_plies(tree: ProofTree, node: int = 0, prover_to_move: bool = True) -> int:
    """The plies within which the prover wins by following the proof tree from `node`, a
    proven node (proof number 0) where the prover is to move or not: at the prover's nodes the
    quickest proven child, at the other side's the slowest reply, a proven leaf 0 (the game
    is over there).  An upper bound on the shortest win, reached by playing the tree."""
    first, sibling, proof = tree.first_child, tree.next_sibling, tree.proof
    plies: dict[int, int] = {}
    stack = [(int(node), prover_to_move, False)]
    while stack:
        current, prover, expanded = stack.pop()
        children = []
        child = int(first[current])
        while child >= 0:
            if proof[child] == 0:
                children.append(child)
            child = int(sibling[child])
        if not children:
            plies[current] = 0
            continue
        if not expanded:
            stack.append((current, prover, True))
            stack.extend((child, not prover, False) for child in children if child not in plies)
            continue
        values = [plies[child] for child in children]
        plies[current] = 1 + (min(values) if prover else max(values))
    return plies[int(node)]


@kernel
def _set_leaf(stack, row, history_start, rules, mlist, prover, node, proof, disproof):
    """Initial numbers of a new node at stack[row]: terminal, repeated or drawn by rule (no win
    for either side), or by its move count."""
    n = legal_moves(stack, row, rules, mlist)
    if n == 0:
        status = game_status(stack, row, rules, mlist)
        if status >= 0 and status % 3 == prover:
            proof[node] = 0
            disproof[node] = INFINITE
        else:
            proof[node] = INFINITE
            disproof[node] = 0
        return
    if is_repetition(stack, row, history_start) or drawn_by_rule(stack[row], rules):
        proof[node] = INFINITE
        disproof[node] = 0
        return
    if np.int64(stack[row, P_SIDE]) == prover:
        proof[node] = 1
        disproof[node] = n
    else:
        proof[node] = n
        disproof[node] = 1


@kernel
def _update(node, prover_to_move, first_child, next_sibling, proof, disproof):
    """Recompute a node's numbers from its children."""
    child = first_child[node]
    if prover_to_move:
        best = INFINITE
        total = np.int64(0)
        while child >= 0:
            if proof[child] < best:
                best = proof[child]
            total = min(INFINITE, total + disproof[child])
            child = next_sibling[child]
        proof[node] = best
        disproof[node] = total
    else:
        best = INFINITE
        total = np.int64(0)
        while child >= 0:
            if disproof[child] < best:
                best = disproof[child]
            total = min(INFINITE, total + proof[child])
            child = next_sibling[child]
        proof[node] = total
        disproof[node] = best


@kernel
def proof_search(stack, idx, history_start, rules, mlist, prover, max_nodes, tree, path, state, control):
    """Grow the proof tree of stack[idx] until it is solved, full or stopped.

    Returns PROVEN if `prover` (0 white, 1 black) wins by force, DISPROVEN if it cannot
    force a win, UNKNOWN otherwise; the nodes used are added to state[0] (the search's node count).  `path`
    (int64[MAX_DEPTH + 2]) is scratch space.
    """
    parent = tree.parent
    first_child = tree.first_child
    next_sibling = tree.next_sibling
    move = tree.move
    proof = tree.proof
    disproof = tree.disproof
    capacity = parent.shape[0]
    parent[0] = -1
    first_child[0] = -1
    next_sibling[0] = -1
    move[0] = 0
    _set_leaf(stack, idx, history_start, rules, mlist, prover, np.int64(0), proof, disproof)
    used = np.int64(1)
    iterations = np.int64(0)
    while proof[0] != 0 and disproof[0] != 0:
        iterations += 1
        if iterations & 63 == 0 and atomic_load(control, np.int64(CONTROL_STOP)) != 0:
            break
        if used + 400 > capacity or used > max_nodes:
            break
        # Select the most-proving node, replaying its moves on the rows above idx.
        node = np.int64(0)
        depth = np.int64(0)
        path[0] = 0
        while first_child[node] >= 0:
            prover_to_move = np.int64(stack[idx + depth, P_SIDE]) == prover
            child = first_child[node]
            chosen = child
            while child >= 0:
                if prover_to_move:
                    if proof[child] == proof[node]:
                        chosen = child
                        break
                elif disproof[child] == disproof[node]:
                    chosen = child
                    break
                child = next_sibling[child]
            make_move(stack, idx + depth, idx + depth + 1, move[chosen], rules)
            depth += 1
            node = chosen
            path[depth] = node
        row = idx + depth
        if depth >= MAX_DEPTH:
            proof[node] = INFINITE
            disproof[node] = 0
        else:
            # Expand: one child per legal move.
            n = legal_moves(stack, row, rules, mlist)
            previous = np.int64(-1)
            for i in range(n):
                child = used
                used += 1
                parent[child] = node
                first_child[child] = -1
                next_sibling[child] = -1
                move[child] = mlist[row, i]
                if previous < 0:
                    first_child[node] = child
                else:
                    next_sibling[previous] = child
                previous = child
                make_move(stack, row, row + 1, mlist[row, i], rules)
                _set_leaf(stack, row + 1, history_start, rules, mlist, prover, child, proof, disproof)
            _update(node, np.int64(stack[row, P_SIDE]) == prover, first_child, next_sibling, proof, disproof)
        # Back up the numbers to the root.
        while depth > 0:
            depth -= 1
            node = path[depth]
            _update(node, np.int64(stack[idx + depth, P_SIDE]) == prover, first_child, next_sibling,
                    proof, disproof)
    state[0] += used
    if proof[0] == 0:
        return np.int64(PROVEN)
    if disproof[0] == 0:
        return np.int64(DISPROVEN)
    return np.int64(UNKNOWN)
