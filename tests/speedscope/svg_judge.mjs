// Headless judge of profconv's SVG flame graphs: opens FILE.svg in Debian
// Chromium (playwright-core, as speedscope.mjs does) and prints what a
// user would see and do, one fact per line:
//   errors N            console errors and page errors while it loads and runs
//   frames N            frames drawn (the <g> in <g id="frames">)
//   top NAME SHARE WIDTH  the widest frame at depth 1..3 (the name, its share
//                       from its title, its drawn width over the full width)
//   zoom NAME WIDTH     a click on the second frame of depth 3 or more: its
//                       drawn width after (the full width when it fills it)
//   matched PERCENT     the search box's figure for PATTERN (argument 3)
//   injected N          dialogs opened as the file loads, and 1 if its root
//                       element got a 'pwned' attribute (what a script
//                       smuggled in by a name would do), first
// and writes a screenshot to PNG (argument 4). More files, each with its
// pattern and screenshot, are judged in turn in the same page (a
// Chromium start and a page's renderer are the most of a judge's CPU
// time: six files in six pages took 2.4 times the CPU of six in one),
// each one's lines after a line `file FILE.svg` (one file too).
//
// usage: node svg_judge.mjs FILE.svg PATTERN PNG [FILE.svg PATTERN PNG]...
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {createRequire} from 'node:module'
import {FRAMES} from './svg_frames.mjs'
import {openBrowser} from './browser.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(HERE, 'package.json'))
const {chromium} = require('playwright-core')

const args = process.argv.slice(2)
if (args.length === 0 || args.length % 3 !== 0) {
  process.stdout.write('error usage: node svg_judge.mjs FILE.svg PATTERN PNG [FILE.svg PATTERN PNG]...\n')
  process.exit(64)
}
const browser = await openBrowser(chromium)
const context = await browser.newContext()
const page = await context.newPage({viewport: {width: 1240, height: 800}})
// what the page does while the file in hand is judged
let errors = 0
let dialogs = 0
let pattern = ''
page.on('console', m => { if (m.type() === 'error') errors++ })
page.on('pageerror', () => errors++)
page.on('dialog', d => { dialogs++; d.accept(pattern) })
for (let i = 0; i < args.length; i += 3) {
  process.stdout.write(`file ${args[i]}\n`)
  await judge(args[i], args[i + 1], args[i + 2])
}
await context.close()
await browser.close()

async function judge(file, pat, png) {
  errors = 0
  dialogs = 0
  pattern = pat
  try {
    await page.goto('file://' + path.resolve(file))
    const pwned = await page.evaluate(() => document.documentElement.hasAttribute('pwned'))
    process.stdout.write(`injected ${dialogs + (pwned ? 1 : 0)}\n`)
    const facts = await page.evaluate(F => {
      const fs = eval(F)
      const gs = fs.map(f => f.g)
      const full = +gs[0].querySelector('rect').getAttribute('width')
      const info = f => ({
        name: f.name,
        depth: f.depth,
        share: +(/([0-9.]+)%\)$/.exec(f.g.querySelector('title').textContent) || [0, 0])[1],
        width: +f.g.querySelector('rect').getAttribute('width') / full,
      })
      const all = fs.map(info)
      const top = all.filter(f => f.depth >= 1 && f.depth <= 3)
        .sort((a, b) => b.share - a.share)[0]
      return {n: gs.length, full, top}
    }, FRAMES)
    process.stdout.write(`frames ${facts.n}\n`)
    process.stdout.write(`top ${facts.top.name} ${facts.top.share.toFixed(2)} ${(100 * facts.top.width).toFixed(2)}\n`)
    // zoom: the second frame at depth 3 or more (narrower than the full width)
    const name = await page.evaluate(F => {
      const f = eval(F).filter(f => f.depth >= 3 && f.w < 0.9)[1]
      if (!f) return ''
      f.g.setAttribute('id', 'zoomme')
      return f.name
    }, FRAMES)
    if (name) {
      await page.click('#zoomme rect', {force: true})
      const w = await page.evaluate(() =>
        +document.querySelector('#zoomme rect').getAttribute('width'))
      process.stdout.write(`zoom ${name} ${(100 * w / facts.full).toFixed(2)}\n`)
    }
    await page.click('#reset', {force: true})
    await page.click('#search', {force: true})
    const matched = await page.evaluate(() => document.getElementById('matched').textContent)
    process.stdout.write(`matched ${(/([0-9.]+)%/.exec(matched) || [0, 'none'])[1]}\n`)
    await page.screenshot({path: png})
  } catch (e) {
    process.stdout.write(`error ${String(e.message || e).replace(/\s+/g, ' ').slice(0, 300)}\n`)
    errors++
  }
  process.stdout.write(`errors ${errors}\n`)
}
