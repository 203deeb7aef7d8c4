# Judge of tests/svg.sh: an SVG flame graph against folded stacks of the
# same input (written with --min-width=0, as the SVG). Every frame of the
# SVG stands for a path of names: its value (from its title) must be the
# sum of the folded lines that path begins (--reverse: of the lines read
# innermost frame first), and every such path of 0.1 pixel or more must
# be a frame. Also prints facts of the layout, one per line:
#   frames N, width W (the svg's), height H, root_y Y (the "all"
#   frame's), deepest_y Y, rect_height H, title T, subtitle T,
#   unit U (of the root's title), fills N (distinct frame colours),
#   palette NAME (hot, mem, io or other: what every frame's colour fits),
#   name_colours consistent|inconsistent, groups_below_root N,
#   attributes_per_frame N (the most of a frame's <g>, <title>, <rect>
#   and <text> together; flamegraph.pl's have 9)
#
#   python3 svg_frames.py FILE.svg FOLDED [reverse]
import re
import sys
import xml.etree.ElementTree as ET

S = '{http://www.w3.org/2000/svg}'


def fail(msg):
    print('FAIL ' + msg)
    sys.exit(1)


def main(svg, folded, reverse=False):
    want = {}
    with open(folded, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            stack, v = line.rstrip('\n').rsplit(' ', 1)
            names = stack.split(';')
            if reverse:
                names.reverse()
            for k in range(1, len(names) + 1):
                p = tuple(names[:k])
                want[p] = want.get(p, 0) + int(v)
    root = ET.parse(svg).getroot()
    fs = next(g for g in root.iter(S + 'g') if g.get('id') == 'frames')
    frames = list(fs)
    # a frame's name: its title without the value part, which holds as
    # many ' (' as the root's title after 'all'; its depth from its y
    k = frames[0].find(S + 'title').text[3:].count(' (')
    row = float(frames[0].find(S + 'rect').get('height')) + 1
    got, path = {}, []
    facts = {'rooty': None, 'ys': [], 'fills': {}, 'unit': None}
    pal = set()
    for g in frames:
        title = g.find(S + 'title').text
        m = re.match(r'.* \((\d+) (.*), [0-9.]+%\)$', title, re.S)
        if not m:
            fail('title %r' % title)
        e = len(title)
        for _ in range(k):
            e = title.rindex(' (', 0, e)
        name = title[:e]
        r = g.find(S + 'rect')
        y = float(r.get('y'))
        if facts['rooty'] is None:
            facts['rooty'] = y
        d = abs(y - facts['rooty']) / row
        if d != int(d):
            fail('frame %r at y %g, not a row from the root' % (name, y))
        d = int(d)
        attrs = [len(g.attrib)] + [len(c.attrib) for c in g]
        facts['attrs'] = max(facts.get('attrs', 0), sum(attrs))
        if d == 0:
            facts['unit'] = m.group(2)
            facts['rh'] = r.get('height')
            continue
        facts['ys'].append((d, y))
        path[d - 1:] = [name]
        if len(path) != d:
            fail('frame %r at depth %d below a path of %d' % (name, d, len(path) - 1))
        got[tuple(path)] = int(m.group(1))
        fill = r.get('fill')
        facts['fills'].setdefault(name, set()).add(fill)
        rgb = tuple(int(c) for c in re.findall(r'\d+', fill))
        if 205 <= rgb[0] <= 255 and rgb[1] <= 230 and rgb[2] <= 55:
            pal.add('hot')
        elif rgb[0] == 0 and 190 <= rgb[1] <= 240 and rgb[2] <= 210:
            pal.add('mem')
        elif rgb[0] == rgb[1] and 80 <= rgb[0] <= 140 and 190 <= rgb[2] <= 245:
            pal.add('io')
        else:
            pal.add('other')
    for p, v in got.items():
        if want.get(p) != v:
            fail('frame %s: %d, the folded stacks %s' % (';'.join(p), v, want.get(p)))
    # (frames narrower than 0.1 pixel are not drawn)
    total = sum(v for p, v in want.items() if len(p) == 1)
    px = float(root.get('width')) - 20
    for p, v in want.items():
        if v * px >= 0.1 * total and p not in got:
            fail('no frame %s (%d in the folded stacks)' % (';'.join(p), v))
    texts = {t.get('id'): t.text for t in root.iter(S + 'text') if t.get('id')}
    first = next(root.iter(S + 'text')).text
    deep = max(facts['ys'], key=lambda t: t[0])[1] if facts['ys'] else None
    print('frames %d' % len(frames))
    print('width %s' % root.get('width'))
    print('height %s' % root.get('height'))
    print('root_y %g' % facts['rooty'])
    print('deepest_y %g' % deep)
    print('rect_height %s' % facts['rh'])
    print('title %s' % first)
    print('subtitle %s' % texts.get('subtitle'))
    print('unit %s' % facts['unit'])
    print('palette %s' % (pal.pop() if len(pal) == 1 else 'mixed'))
    print('name_colours %s' % ('consistent' if all(len(c) == 1 for c in facts['fills'].values())
                               else 'inconsistent'))
    print('groups_below_root %d' % sum(1 for e in root if e.tag == S + 'g'))
    print('attributes_per_frame %d' % facts['attrs'])


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == 'reverse')
