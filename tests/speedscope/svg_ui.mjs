// Headless judge of the SVG flame graph's keys and shared views, in
// Debian Chromium (playwright-core, as svg_judge.mjs): prints one fact
// per line.
//   frames N            frames drawn (the <g> in <g id="frames">)
//   hover title|none    the pointer over the root frame: its title shown
//                       in the details line
//   ctrlf DIALOGS       prompts opened by Ctrl-F (the search; answered
//                       with PATTERN)
//   matched PERCENT     the search's figure (or "none")
//   ic_matched PERCENT  the figure after a click on "ic" (any case)
//   ctrli_matched P     the figure after Ctrl-I (case again)
//   zoom NAME WIDTH     a click on the second frame of depth 2 or more
//                       narrower than the whole: its width after, in % of
//                       the full width
//   hash HASH           the page's URL after these (#z=..&s=..&ic=1)
//   restored_zoom W     the same file opened at HASH in a new page: the
//                       zoomed frame's width (in %)
//   restored_matched P  ... the search's figure there
//   errors N            console and page errors
//
// usage: node svg_ui.mjs FILE.svg PATTERN
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {createRequire} from 'node:module'
import {FRAMES} from './svg_frames.mjs'
import {openBrowser} from './browser.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(HERE, 'package.json'))
const {chromium} = require('playwright-core')

const [file, pattern] = process.argv.slice(2)
if (!file || pattern === undefined) {
  process.stdout.write('error usage: node svg_ui.mjs FILE.svg PATTERN\n')
  process.exit(64)
}
const url = 'file://' + path.resolve(file)
const browser = await openBrowser(chromium)
const context = await browser.newContext()
let errors = 0
const out = s => process.stdout.write(s + '\n')
const matched = p => p.evaluate(() => {
  const m = /([0-9.]+)%/.exec(document.getElementById('matched').textContent)
  return m ? m[1] : 'none'
})
try {
  const page = await context.newPage({viewport: {width: 1240, height: 800}})
  let dialogs = 0
  page.on('console', m => { if (m.type() === 'error') errors++ })
  page.on('pageerror', () => errors++)
  page.on('dialog', d => { dialogs++; d.accept(pattern) })
  await page.goto(url)
  out(`frames ${await page.evaluate(() => document.getElementById('frames').children.length)}`)
  await page.hover('#frames > g rect', {force: true})
  out(`hover ${await page.evaluate(() =>
    document.getElementById('details').textContent === document.querySelector('#frames > g title').textContent ? 'title' : 'none')}`)
  await page.keyboard.press('Control+f')
  out(`ctrlf ${dialogs}`)
  out(`matched ${await matched(page)}`)
  await page.click('#ic', {force: true})
  out(`ic_matched ${await matched(page)}`)
  await page.keyboard.press('Control+i')
  out(`ctrli_matched ${await matched(page)}`)
  await page.keyboard.press('Control+i')
  const name = await page.evaluate(F => {
    const f = eval(F).filter(f => f.depth >= 2 && f.w < 0.9)[1]
    if (!f) return ''
    f.g.setAttribute('id', 'zoomme')
    return f.name
  }, FRAMES)
  const width = p => p.evaluate(F => {
    const full = +document.querySelector('#frames > g rect').getAttribute('width')
    const z = eval(F).find(f => f.name === window.zoomName && f.g.style.display !== 'none' &&
      f.g.style.opacity !== '0.6')
    return z ? (100 * +z.g.querySelector('rect').getAttribute('width') / full).toFixed(2) : 'none'
  }, FRAMES)
  if (name) {
    await page.click('#zoomme rect', {force: true})
    await page.evaluate(n => { window.zoomName = n }, name)
    out(`zoom ${name} ${await width(page)}`)
  }
  const hash = await page.evaluate(() => location.hash)
  out(`hash ${hash}`)
  const p2 = await context.newPage({viewport: {width: 1240, height: 800}})
  p2.on('pageerror', () => errors++)
  await p2.goto(url + hash)
  await p2.evaluate(n => { window.zoomName = n }, name)
  out(`restored_zoom ${await width(p2)}`)
  out(`restored_matched ${await matched(p2)}`)
} catch (e) {
  out(`error ${String(e.message || e).replace(/\s+/g, ' ').slice(0, 300)}`)
  errors++
} finally {
  await context.close()
  await browser.close()
}
out(`errors ${errors}`)
