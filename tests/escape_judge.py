# Judges of tests/escape.sh: what profconv's writers made of names that
# hold markup, quotes, control characters, U+FFFE/U+FFFF and bytes that
# are not UTF-8. NAMES is a file of the raw names given to the input,
# each ended by a NUL byte.
#
#   svg FILE REF NAMES   FILE parses (expat); its elements and attributes
#                        are those the writer makes (REF: an SVG of a
#                        plain input), its script is REF's, byte for
#                        byte; every name is a frame's name (its
#                        title's text before the value part: as many
#                        " (" cut off as the root's title holds after
#                        "all"), written as the SVG writer's text (\xHH
#                        for what XML cannot hold); prints "frames N"
#   json FILE NAMES      FILE parses; every name is an event's name, as
#                        it was (bytes that are not UTF-8 as \xHH)
#   yaml FILE NAMES      FILE parses (PyYAML, where installed); every
#                        name is a metric's name, as it was
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'


def names(path):
    with open(path, 'rb') as f:
        return [n for n in f.read().split(b'\0') if n]


def utf8_escaped(raw):
    """pc_utf8_escape: the bytes that are not UTF-8 as \\xHH text (a
    surrogate, an overlong form and a code past U+10FFFF are not)"""
    out, i = [], 0
    while i < len(raw):
        for k in (4, 3, 2, 1):
            try:
                c = raw[i:i + k].decode('utf-8')
            except UnicodeDecodeError:
                continue
            if len(c) == 1:
                out.append(c)
                i += k
                break
        else:
            out.append('\\x%02X' % raw[i])
            i += 1
    return ''.join(out)


def text_escaped(raw):
    """pc_text_escape: also control characters and U+FFFE/U+FFFF (not
    XML characters), each byte of them as \\xHH"""
    out = []
    for c in utf8_escaped(raw):
        if ord(c) < 0x20 or ord(c) == 0x7f or c in '\ufffe\uffff':
            out.append(''.join('\\x%02X' % b for b in c.encode('utf-8')))
        else:
            out.append(c)
    return ''.join(out)


def fail(msg):
    print('FAIL ' + msg)
    sys.exit(1)


def shape(root):
    """element names, attribute names and the script of an SVG"""
    tags, attrs, script = set(), set(), []
    for e in root.iter():
        tags.add(e.tag)
        attrs.update(e.attrib)
        if e.tag == SVG + 'script':
            script.append(e.text)
    return tags, attrs, script


def frame_names(root):
    """(name, title) of each frame (the <g> in <g id="frames">): the
    title without its value part, which holds as many ' (' as the root
    frame's title after 'all'"""
    fs = next(g for g in root.iter(SVG + 'g') if g.get('id') == 'frames')
    titles = [g.find(SVG + 'title').text for g in fs]
    k = titles[0][3:].count(' (')
    out = []
    for t in titles:
        e = len(t)
        for _ in range(k):
            e = t.rindex(' (', 0, e)
        out.append((t[:e], t))
    return out


def judge_svg(path, ref, namefile):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail('%s: not XML: %s' % (path, e))
    tags, attrs, script = shape(root)
    rtags, rattrs, rscript = shape(ET.parse(ref).getroot())
    if not tags <= rtags:
        fail('elements the writer does not make: %s' % sorted(tags - rtags))
    if not attrs <= rattrs:
        fail('attributes the writer does not make: %s' % sorted(attrs - rattrs))
    if len(script) != 1 or script != rscript:
        fail('%d script(s), not the writer\'s one' % len(script))
    frames = frame_names(root)
    shown = set(n for n, _ in frames)
    for n in names(namefile):
        want = text_escaped(n)
        if want not in shown:
            fail('no frame named %r (of %r)' % (want, n))
    print('frames %d' % len(frames))


def judge_json(path, namefile):
    with open(path, 'rb') as f:
        try:
            d = json.loads(f.read().decode('utf-8'))
        except (ValueError, UnicodeDecodeError) as e:
            fail('%s: not JSON: %s' % (path, e))
    shown = set(e.get('name') for e in d['traceEvents'])
    for n in names(namefile):
        if utf8_escaped(n) not in shown:
            fail('no event named %r' % utf8_escaped(n))
    print('events %d' % len(d['traceEvents']))


def judge_yaml(path, namefile):
    try:
        import yaml
    except ImportError:
        print('skip no PyYAML (Debian: python3-yaml)')
        return
    with open(path, 'rb') as f:
        try:
            d = yaml.safe_load(f)
        except yaml.YAMLError as e:
            fail('%s: not YAML: %s' % (path, re.sub(r'\s+', ' ', str(e))))
    shown = set(r.get('name') for r in d['roots'])
    for n in names(namefile):
        if utf8_escaped(n) not in shown:
            fail('no metric named %r (has %r)' % (utf8_escaped(n), shown))
    print('metrics %d' % len(d['roots']))


if __name__ == '__main__':
    what, args = sys.argv[1], sys.argv[2:]
    {'svg': judge_svg, 'json': judge_json, 'yaml': judge_yaml}[what](*args)
