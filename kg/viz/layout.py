"""Force-directed layout fast enough for 10,000 nodes, computed once in Python.

networkx's ``forceatlas2_layout`` and ``spring_layout`` build a dense n x n matrix (800 MB and
minutes at 10k nodes), so this is ForceAtlas2's force model with the all-pairs repulsion
approximated on a grid (particle-mesh): node masses are spread onto a 128 x 128 grid, the
repulsion field is one FFT convolution, and each node reads its force back from the grid.  One
iteration is O(nodes + edges + grid log grid), about 10 ms at 10k nodes.  Small graphs (up to
``EXACT_MAX`` nodes) sum the repulsion exactly.
"""

from __future__ import annotations

import numpy as np

GRID = 128
EXACT_MAX = 150
"""Up to this many nodes the repulsion is summed exactly over all pairs."""


def layout(n: int, edges: list[tuple[int, int]], *, iterations: int = 200, seed: int = 7) -> np.ndarray:
    """Return an ``(n, 2)`` array of positions; deterministic for a given graph and seed.

    Example:
        >>> pos = layout(3, [(0, 1), (1, 2)])
        >>> pos.shape
        (3, 2)
    """
    if n == 0:
        return np.zeros((0, 2))
    rng = np.random.default_rng(seed)
    src = np.fromiter((s for s, _ in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((t for _, t in edges), dtype=np.int64, count=len(edges))
    mass = 1.0 + np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    radius = np.sqrt(mass.sum())
    angle = rng.uniform(0, 2 * np.pi, n)
    r = radius * np.sqrt(rng.uniform(0, 1, n))
    pos = np.column_stack((r * np.cos(angle), r * np.sin(angle)))
    if n == 1:
        return np.zeros((1, 2))
    kernel = _kernel() if n > EXACT_MAX else None
    for step in range(iterations):
        force = _repulsion_exact(pos, mass) if kernel is None else _repulsion_grid(pos, mass, kernel)
        delta = pos[dst] - pos[src]
        np.add.at(force, src, delta)
        np.add.at(force, dst, -delta)
        force -= mass[:, None] * pos  # strong (linear) gravity keeps small components close by
        move = force / mass[:, None]
        temperature = radius * 0.1 * (1 - step / iterations) + radius * 0.002
        length = np.linalg.norm(move, axis=1, keepdims=True) + 1e-9
        pos += move * np.minimum(1.0, temperature / length)
    return pos - pos.mean(axis=0)


def _repulsion_exact(pos: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """ForceAtlas2 repulsion m_i m_j / d summed over all pairs."""
    diff = pos[:, None, :] - pos[None, :, :]
    d2 = (diff**2).sum(axis=2) + 1e-9
    return mass[:, None] * (diff * (mass[None, :] / d2)[:, :, None]).sum(axis=1)


def _kernel() -> tuple[np.ndarray, np.ndarray]:
    """Spectra of the repulsion kernel r/|r|^2 on the padded grid, in units of one cell."""
    size = 2 * GRID
    offs = np.fft.fftfreq(size, 1 / size)
    ox, oy = np.meshgrid(offs, offs, indexing="ij")
    d2 = ox * ox + oy * oy + 1.0  # softened by one cell so nodes sharing a cell do not explode
    return np.fft.rfft2(ox / d2), np.fft.rfft2(oy / d2)


def _repulsion_grid(pos: np.ndarray, mass: np.ndarray, kernel: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """ForceAtlas2 repulsion m_i m_j / d for all pairs, through a grid convolution."""
    lo = pos.min(axis=0)
    span = float(max((pos.max(axis=0) - lo).max(), 1e-6))
    cell = span * 1.02 / (GRID - 1)
    g = (pos - lo) / cell
    i0 = np.clip(np.floor(g).astype(np.int64), 0, GRID - 2)
    f = g - i0
    weights = (
        ((1 - f[:, 0]) * (1 - f[:, 1]), 0, 0),
        (f[:, 0] * (1 - f[:, 1]), 1, 0),
        ((1 - f[:, 0]) * f[:, 1], 0, 1),
        (f[:, 0] * f[:, 1], 1, 1),
    )
    density = np.zeros(GRID * GRID)
    for w, dx, dy in weights:
        density += np.bincount((i0[:, 0] + dx) * GRID + i0[:, 1] + dy, weights=w * mass, minlength=GRID * GRID)
    size = 2 * GRID
    spectrum = np.fft.rfft2(density.reshape(GRID, GRID), s=(size, size))
    fx = np.fft.irfft2(spectrum * kernel[0], s=(size, size))[:GRID, :GRID].ravel() / cell
    fy = np.fft.irfft2(spectrum * kernel[1], s=(size, size))[:GRID, :GRID].ravel() / cell
    out = np.zeros_like(pos)
    for w, dx, dy in weights:
        idx = (i0[:, 0] + dx) * GRID + i0[:, 1] + dy
        out[:, 0] += w * fx[idx]
        out[:, 1] += w * fy[idx]
    return out * mass[:, None]


def grouped_layout(groups: list[int], edges: list[tuple[int, int]], *, seed: int = 7) -> np.ndarray:
    """Each group laid out on its own in a disc of area proportional to its size, the discs on a
    sunflower spiral in group order (group 0, the largest, in the middle), so that groups read as
    separate regions; edges between groups do not pull them together.

    Example:
        >>> pos = grouped_layout([0, 0, 1], [(0, 1), (1, 2)])
        >>> pos.shape, bool(abs(pos[0] - pos[2]).max() > abs(pos[0] - pos[1]).max())
        ((3, 2), True)
    """
    pos = np.zeros((len(groups), 2))
    members: dict[int, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    inside: dict[int, list[tuple[int, int]]] = {}
    for s, t in edges:
        if groups[s] == groups[t]:
            inside.setdefault(groups[s], []).append((s, t))
    golden = np.pi * (3 - np.sqrt(5))
    area = 0.0
    for k, g in enumerate(sorted(members)):
        ids = members[g]
        local = {v: j for j, v in enumerate(ids)}
        sub = layout(len(ids), [(local[s], local[t]) for s, t in inside.get(g, [])], seed=seed)
        sub = sub - sub.mean(axis=0)
        sub /= max(float(np.sqrt((sub**2).sum(axis=1)).max()), 1e-9)
        radius = np.sqrt(len(ids))
        distance = 1.25 * np.sqrt(area + len(ids) / 2) * 2 if k else 0.0
        area += len(ids)
        centre = distance * np.array([np.cos(k * golden), np.sin(k * golden)])
        pos[ids] = centre + sub * radius
    return pos
