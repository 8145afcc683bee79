"""Line of sight around one convex wall: the visible fraction of a unit square.

From an eye at point ``P``, a convex wall ``R`` hides the region swept by its corners away
from ``P``: the convex hull of ``R``'s corners and the same corners pushed far along the
rays from ``P``. The hidden part of a target square is the square clipped to that hull
(Sutherland–Hodgman), and the visible fraction is one minus its area. With a single convex
wall this is exact.
"""

from __future__ import annotations

Point = tuple[float, float]
#: How far the shadow's far corners are pushed (in units of their distance from the eye).
FAR = 1000.0


def polygon_area(poly: list[Point]) -> float:
    """The (unsigned) area of a simple polygon (shoelace formula)."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
        total += x0 * y1 - x1 * y0
    return abs(total) / 2.0


def convex_hull(points: list[Point]) -> list[Point]:
    """The convex hull, counter-clockwise, collinear points dropped (monotone chain)."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o: Point, a: Point, b: Point) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[Point] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[Point] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def clip(subject: list[Point], convex: list[Point]) -> list[Point]:
    """``subject`` clipped to the counter-clockwise convex polygon ``convex``."""
    out = subject
    for (ax, ay), (bx, by) in zip(convex, convex[1:] + convex[:1]):
        if not out:
            break

        def inside(p: Point) -> bool:
            return (bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax) >= 0

        def crossing(p: Point, q: Point) -> Point:
            dx, dy = q[0] - p[0], q[1] - p[1]
            ex, ey = bx - ax, by - ay
            t = (ex * (p[1] - ay) - ey * (p[0] - ax)) / (ey * dx - ex * dy)
            return (p[0] + t * dx, p[1] + t * dy)

        points, out = out, []
        for p, q in zip(points, points[1:] + points[:1]):
            if inside(q):
                if not inside(p):
                    out.append(crossing(p, q))
                out.append(q)
            elif inside(p):
                out.append(crossing(p, q))
    return out


def rectangle(x0: float, y0: float, x1: float, y1: float) -> list[Point]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def visible_fraction(eye: Point, wall: list[Point], target: list[Point]) -> float:
    """The fraction of the area of ``target`` visible from ``eye`` past the convex ``wall``."""
    far = [(eye[0] + FAR * (x - eye[0]), eye[1] + FAR * (y - eye[1])) for x, y in wall]
    shadow = convex_hull(list(wall) + far)
    hidden = clip(list(target), shadow)
    area = polygon_area(target)
    return 1.0 - (polygon_area(hidden) if len(hidden) >= 3 else 0.0) / area
