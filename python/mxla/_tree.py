"""Pytrees: nested tuples, lists, dicts and namedtuples of arrays, as
mxla.jit, mxla.grad and mxla.vjp take and return them (JAX's pytree rules:
dict keys in sorted order, None is an empty subtree, anything else a
leaf)."""


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def flatten(tree):
    """(leaves, treedef): the leaves left to right, and a hashable
    description of the structure that unflatten reverses."""
    leaves = []
    treedef = _flatten_into(tree, leaves)
    return leaves, treedef


def _flatten_into(tree, leaves):
    if tree is None:
        return ("none",)
    if _is_namedtuple(tree):
        return ("namedtuple", type(tree),
                tuple(_flatten_into(child, leaves) for child in tree))
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__,
                tuple(_flatten_into(child, leaves) for child in tree))
    if isinstance(tree, dict):
        keys = tuple(sorted(tree))
        return ("dict", keys,
                tuple(_flatten_into(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return ("leaf",)


def unflatten(treedef, leaves):
    """The tree of `treedef` with `leaves` (an iterable, consumed in
    order) in place of its leaves."""
    it = iter(leaves)
    tree = _build(treedef, it)
    if next(it, _END) is not _END:
        raise ValueError("unflatten: more leaves than the tree has")
    return tree


_END = object()


def _build(treedef, it):
    kind = treedef[0]
    if kind == "leaf":
        leaf = next(it, _END)
        if leaf is _END:
            raise ValueError("unflatten: fewer leaves than the tree has")
        return leaf
    if kind == "none":
        return None
    if kind == "namedtuple":
        return treedef[1](*(_build(child, it) for child in treedef[2]))
    if kind == "dict":
        return {k: _build(child, it) for k, child in zip(treedef[1], treedef[2])}
    children = [_build(child, it) for child in treedef[1]]
    return tuple(children) if kind == "tuple" else children


def leaf_count(treedef):
    kind = treedef[0]
    if kind == "leaf":
        return 1
    if kind == "none":
        return 0
    return sum(leaf_count(child) for child in treedef[-1])


def tree_map(fn, tree):
    leaves, treedef = flatten(tree)
    return unflatten(treedef, [fn(leaf) for leaf in leaves])
