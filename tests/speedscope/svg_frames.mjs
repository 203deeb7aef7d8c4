// The frames of profconv's SVG flame graph, as the page's script reads
// them (svg_judge.mjs, svg_ui.mjs): an expression to evaluate in the page.
// a frame (a <g> in <g id="frames">): its name is its title without the
// value part, which holds as many ' (' as the root's title after 'all';
// its depth is its row from the root's (rect y)
export const FRAMES = `(() => {
  const fs = [...document.getElementById('frames').children]
  const k = fs[0].firstChild.textContent.substring(3).split(' (').length - 1
  const y0 = +fs[0].children[1].getAttribute('y'), row = +fs[0].children[1].getAttribute('height') + 1
  const full = +fs[0].children[1].getAttribute('width')
  return fs.map(g => {
    const t = g.firstChild.textContent
    let e = t.length
    for (let j = 0; j < k; j++) e = t.lastIndexOf(' (', e - 1)
    const r = g.children[1]
    return {g, name: t.substring(0, e), depth: Math.abs(+r.getAttribute('y') - y0) / row,
      w: (+r.getAttribute('width') + 0.5) / (full + 0.5)}
  })
})()`
