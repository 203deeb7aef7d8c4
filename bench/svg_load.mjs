// Load time of SVG files in headless Debian Chromium (playwright-core of
// tests/speedscope): each file opened ROUNDS times in a fresh page, in
// turn: the time from the navigation's start to the end of its load
// event (PerformanceNavigationTiming: parsing and the script's init,
// which binds every frame), and to two animation frames after it (the
// page drawn); and the CPU time of the page's main thread until then
// (DevTools' TaskDuration in thread ticks: what the load costs, whatever
// else the machine runs). Prints per file "FILE load_median load_min
// drawn_median drawn_min cpu_median cpu_min rects" (milliseconds).
//   node bench/svg_load.mjs ROUNDS FILE.svg...
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {createRequire} from 'node:module'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(HERE, '..', 'tests', 'speedscope', 'package.json'))
const {chromium} = require('playwright-core')

const [rounds, ...files] = process.argv.slice(2)
const browser = await chromium.launch({
  executablePath: process.env.SS_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
})
const times = files.map(() => [])
const drawn = files.map(() => [])
const cpu = files.map(() => [])
const frames = files.map(() => 0)
for (let r = 0; r < +rounds; r++) {
  for (let i = 0; i < files.length; i++) {
    const ctx = await browser.newContext({viewport: {width: 1240, height: 800}})
    const page = await ctx.newPage()
    const cdp = await ctx.newCDPSession(page)
    await cdp.send('Performance.enable', {timeDomain: 'threadTicks'})
    await page.goto('file://' + path.resolve(files[i]), {waitUntil: 'load', timeout: 120000})
    const t = await page.evaluate(() => new Promise(done => {
      // drawn: two animation frames after the load event
      requestAnimationFrame(() => requestAnimationFrame(() => {
        const n = performance.getEntriesByType('navigation')[0]
        done({load: n.loadEventEnd - n.startTime, drawn: performance.now() - n.startTime,
          frames: document.querySelectorAll('g rect').length})
      }))
    }))
    times[i].push(t.load)
    drawn[i].push(t.drawn)
    const m = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map(x => [x.name, x.value]))
    cpu[i].push(1000 * m.TaskDuration)
    frames[i] = t.frames
    await ctx.close()
  }
}
await browser.close()
const med = v => {
  const a = v.slice().sort((x, y) => x - y)
  return (a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2).toFixed(0)
}
for (let i = 0; i < files.length; i++)
  process.stdout.write(`${path.basename(files[i])} ${med(times[i])} ${Math.min(...times[i]).toFixed(0)} ` +
    `${med(drawn[i])} ${Math.min(...drawn[i]).toFixed(0)} ${med(cpu[i])} ${Math.min(...cpu[i]).toFixed(0)} ${frames[i]}\n`)
