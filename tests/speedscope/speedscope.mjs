// Headless speedscope judge: load FILE into speedscope's own bundled web app in
// Debian Chromium and print what speedscope shows. See README.txt.
//
// usage: node ss_judge.mjs FILE [PNG]
import http from 'node:http'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {createRequire} from 'node:module'
import {openBrowser, CHROMIUM} from './browser.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(HERE, 'package.json'))
const {chromium} = require('playwright-core')

const env = process.env
const TIMEOUT_MS = Number(env.SS_TIMEOUT_MS || 60000)
const DETAIL = env.SS_DETAIL !== '0' // print frame/call lines
const MAX_LINES = Number(env.SS_MAX_LINES || 200) // cap per profile per kind
const TITLE = env.SS_TITLE // NOTE: speedscope renames *every* profile to this title
const VIEW = env.SS_VIEW // time-ordered | left-heavy | sandwich (speedscope's #view=)
const [W, H] = (env.SS_SIZE || '1280x720').split('x').map(Number)

function die(msg, code = 2) {
  process.stdout.write(`error ${msg.replace(/\s+/g, ' ').trim().slice(0, 400)}\n`)
  process.exit(code)
}

const file = process.argv[2]
if (!file) die('usage: ss_view.sh FILE [PNG]', 64)
let stat
try {
  stat = fs.statSync(file)
} catch (e) {
  die(`cannot read ${file}: ${e.code || e.message}`, 66)
}
if (!stat.isFile()) die(`${file} is not a regular file`, 66)
const png = process.argv[3] || file + '.png'

// Locate speedscope's bundled app.
const ssPkgDir = path.dirname(require.resolve('speedscope/package.json'))
const ssVersion = JSON.parse(fs.readFileSync(path.join(ssPkgDir, 'package.json'), 'utf8')).version
let appDir = path.join(ssPkgDir, 'dist', 'release')
if (!fs.existsSync(path.join(appDir, 'index.html'))) die(`index.html not found under ${appDir}`, 70)

// ---------------------------------------------------------------- HTTP server
// /app/*            -> speedscope dist/release
// /profile/<base>   -> FILE (served under its own basename, because speedscope
//                      picks importers partly by file name, e.g. *.chrome.json)
const base = env.SS_SERVE_NAME || path.basename(file)
const profilePath = '/profile/' + encodeURIComponent(base)
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
}
const server = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://x')
  let target = null
  if (u.pathname === profilePath) target = path.resolve(file)
  else if (u.pathname.startsWith('/app/')) {
    const rel = decodeURIComponent(u.pathname.slice(5)) || 'index.html'
    const p = path.resolve(appDir, rel)
    if (p.startsWith(appDir + path.sep)) target = p
  }
  if (!target || !fs.existsSync(target) || !fs.statSync(target).isFile()) {
    res.writeHead(404)
    return res.end('not found')
  }
  const type =
    target === path.resolve(file)
      ? 'application/octet-stream'
      : MIME[path.extname(target)] || 'application/octet-stream'
  res.writeHead(200, {'Content-Type': type, 'Cache-Control': 'no-store'})
  fs.createReadStream(target).pipe(res)
})
await new Promise(r => server.listen(0, '127.0.0.1', r))
const port = server.address().port
const origin = `http://127.0.0.1:${port}`
const profileURL = origin + profilePath
let hash = `profileURL=${encodeURIComponent(profileURL)}`
if (TITLE) hash += `&title=${encodeURIComponent(TITLE)}`
if (VIEW) hash += `&view=${encodeURIComponent(VIEW)}`
const pageURL = `${origin}/app/index.html#${hash}`

// ---------------------------------------------------------------- browser
let browser
let context
const cleanup = async () => {
  try {
    if (context) await context.close()
    if (browser) await browser.close()
  } catch {}
  server.close()
}
const fail = async (msg, code = 1) => {
  await cleanup()
  die(msg, code)
}

const out = []
const emit = s => out.push(s)
try {
  browser = await openBrowser(chromium)
} catch (e) {
  await fail(`cannot launch ${CHROMIUM}: ${String(e.message).split('\n')[0]}`, 70)
}
context = await browser.newContext()
const page = await context.newPage({viewport: {width: W, height: H}})
const dialogs = []
const importerLogs = []
const consoleErrors = []
const importerWarnings = []
page.on('dialog', async d => {
  dialogs.push(d.message())
  try {
    await d.dismiss()
  } catch {}
})
page.on('console', m => {
  const t = m.text()
  if (/^Importing /.test(t)) importerLogs.push(t)
  if (m.type() === 'error' || /^Failed to load format/.test(t)) consoleErrors.push(t)
  // importer warnings (e.g. mismatched B/E, frames left open); skip GPU noise
  if (m.type() === 'warning' && !/GL Driver Message|WebGL|GPU stall/.test(t)) importerWarnings.push(t)
})
page.on('pageerror', e => consoleErrors.push(String(e.message).split('\n')[0]))

try {
  await page.goto(pageURL, {waitUntil: 'load', timeout: TIMEOUT_MS})
} catch (e) {
  await fail(`page did not load: ${String(e.message).split('\n')[0]}`)
}

// In-page probe: walk preact's vnode tree (rooted at document.body.__k in the
// minified preact 10 build) to find <Application>'s props, which carry the
// loaded state (profileGroup, activeProfileState, loading, error, viewMode).
const probe = () => {
  // preact was rendered with replaceNode = the <script> tag, so the root vnode
  // hangs off that element rather than document.body.
  const roots = document.body
    ? [document.body, ...document.body.children].map(e => e.__k).filter(Boolean)
    : []
  let app = null
  const seen = new Set()
  const stack = roots.slice()
  while (stack.length && !app) {
    const v = stack.pop()
    if (!v || typeof v !== 'object' || seen.has(v)) continue
    seen.add(v)
    const p = v.props
    if (p && 'profileGroup' in p && 'setProfileGroup' in p && 'hashParams' in p) {
      app = p
      break
    }
    const kids = v.__k
    if (Array.isArray(kids)) for (const k of kids) stack.push(k)
    else if (kids && typeof kids === 'object') stack.push(kids)
  }
  const text = (document.body && document.body.innerText) || ''
  return {
    found: !!app,
    loading: app ? !!app.loading : null,
    error: app ? !!app.error : null,
    hasGroup: !!(app && app.profileGroup),
    hasActive: !!(app && app.activeProfileState),
    canvases: document.querySelectorAll('canvas').length,
    wentWrong: /Something went wrong/.test(text),
    landing: /Drag and drop a profile file|Browse/.test(text) && !(app && app.profileGroup),
  }
}

const t0 = Date.now()
let st
for (;;) {
  st = await page.evaluate(probe)
  if (st.error || st.wentWrong) {
    await page.screenshot({path: png}).catch(() => {})
    const why = consoleErrors.find(e => /Failed to load format/.test(e)) || consoleErrors[0] || ''
    const imp = importerLogs.length ? ` [${importerLogs.join(' | ')}]` : ''
    await fail(`speedscope shows import error ("Something went wrong")${imp}${why ? ': ' + why : ''}`)
  }
  if (dialogs.length) {
    await page.screenshot({path: png}).catch(() => {})
    const imp = importerLogs.length ? ` [${importerLogs.join(' | ')}]` : ''
    await fail(`speedscope alert${imp}: ${dialogs.join(' | ')}`)
  }
  if (st.found && !st.loading && st.hasGroup && st.hasActive && st.canvases > 0) break
  if (Date.now() - t0 > TIMEOUT_MS) {
    await page.screenshot({path: png}).catch(() => {})
    await fail(`timeout after ${TIMEOUT_MS}ms waiting for profile (state ${JSON.stringify(st)})`)
  }
  await page.waitForTimeout(100)
}

// Two helpers in the page, for the reads below: speedscope's application
// component (its props hold the profile group and its setters), found
// through Preact's tree of vnodes, and a wait of n animation frames.
await page.evaluate(() => {
  window.__ssApp = () => {
    const roots = [document.body, ...document.body.children].map(e => e.__k).filter(Boolean)
    const seen = new Set()
    const stack = roots.slice()
    while (stack.length) {
      const v = stack.pop()
      if (!v || typeof v !== 'object' || seen.has(v)) continue
      seen.add(v)
      if (v.props && 'profileGroup' in v.props && 'setProfileGroup' in v.props) return v.props
      const kids = v.__k
      if (Array.isArray(kids)) for (const k of kids) stack.push(k)
      else if (kids && typeof kids === 'object') stack.push(kids)
    }
    return null
  }
  window.__ssFrames = n =>
    new Promise(r => {
      let k = 0
      const f = () => (++k >= n ? r() : requestAnimationFrame(f))
      requestAnimationFrame(f)
    })
})

// Let the flamechart render a few frames so the screenshot and the
// viewport state are settled.
await page.evaluate(() => window.__ssFrames(10))
await page.waitForTimeout(300)

const facts = await page.evaluate(
  ({DETAIL, MAX_LINES}) => {
    const app = window.__ssApp()
    const g = app.profileGroup
    const active = app.activeProfileState
    const res = {
      groupName: g.name,
      indexToView: g.indexToView,
      viewMode: app.viewMode,
      documentTitle: document.title,
      profiles: [],
    }
    g.profiles.forEach((ps, i) => {
      const p = ps.profile
      const total = p.getTotalWeight()
      const r = {
        name: p.getName(),
        unit: p.getWeightUnit(),
        total,
        nonIdle: p.getTotalNonIdleWeight(),
        totalFmt: p.formatValue(total),
        nonIdleFmt: p.formatValue(p.getTotalNonIdleWeight()),
        frames: [],
        framesTotal: 0,
        calls: [],
        callsTotal: 0,
        view: null,
      }
      // Chrono ("Time Order") viewport, if that view has been rendered for this profile.
      const key = ['chronoViewState', 'leftHeavyViewState'][app.viewMode]
      const vs = key && (active && active.index === i ? active : ps)[key]
      if (vs && vs.configSpaceViewportRect && vs.configSpaceViewportRect.size.x > 0) {
        const R = vs.configSpaceViewportRect
        r.view = {start: R.origin.x, end: R.origin.x + R.size.x}
      }
      if (DETAIL) {
        const frames = []
        p.forEachFrame(f => frames.push(f))
        frames.sort((a, b) => b.getTotalWeight() - a.getTotalWeight())
        r.framesTotal = frames.length
        r.frames = frames.slice(0, MAX_LINES).map(f => ({
          name: f.name,
          self: f.getSelfWeight(),
          total: f.getTotalWeight(),
        }))
        // The same traversal speedscope's "Time Order" flamechart uses.
        const open = []
        const calls = []
        p.forEachCall(
          (node, v) => open.push({node, start: v, depth: open.length}),
          (node, v) => {
            const o = open.pop()
            calls.push({depth: o.depth, name: node.frame.name, start: o.start, end: v})
          },
        )
        calls.sort((a, b) => a.start - b.start || a.depth - b.depth)
        r.callsTotal = calls.length
        r.calls = calls.slice(0, MAX_LINES)
      }
      res.profiles.push(r)
    })
    // What the DOM literally shows: toolbar centre + profile-select rows.
    const rows = [...document.querySelectorAll('tr[title]')].filter(tr => tr.cells.length === 3)
    res.uiRows = rows.map(tr => [...tr.cells].map(td => td.textContent))
    // Toolbar = <div>[left tabs div][centre][right tabs div]</div>; the centre is
    // a bare text node (1 profile) or a div whose first span is "name (i/N)".
    const toolbar = [...document.querySelectorAll('div')].find(
      el =>
        el.firstElementChild &&
        /Time Order/.test(el.firstElementChild.textContent) &&
        el.lastElementChild !== el.firstElementChild &&
        /Import/.test(el.lastElementChild.textContent),
    )
    res.uiToolbar = null
    if (toolbar) {
      const mid = [...toolbar.childNodes].slice(1, -1)
      res.uiToolbar = mid
        .map(n => (n.nodeType === 3 ? n.textContent : n.firstElementChild ? n.firstElementChild.textContent : n.textContent))
        .join('')
    }
    return res
  },
  {DETAIL, MAX_LINES},
)

await page.screenshot({path: png})

// Visit every profile through speedscope's own setProfileIndexToView (what the
// profile selector does) so each one's "Time Order" viewport gets laid out,
// then read the viewport speedscope settled on. Finally go back to the
// initially shown profile.
const MAX_VISIT = Number(env.SS_MAX_VISIT || 50)
const nProf = facts.profiles.length
if (nProf > 1 && nProf <= MAX_VISIT && facts.viewMode <= 1) {
  for (let i = 0; i <= nProf; i++) {
    const idx = i === nProf ? facts.indexToView : i
    const v = await page.evaluate(
      async ({idx, key}) => {
        window.__ssApp().setProfileIndexToView(idx)
        await window.__ssFrames(6)
        const a = window.__ssApp().activeProfileState
        const R = a && a.index === idx && a[key].configSpaceViewportRect
        return R && R.size.x > 0 ? {start: R.origin.x, end: R.origin.x + R.size.x} : null
      },
      {idx, key: ['chronoViewState', 'leftHeavyViewState'][facts.viewMode]},
    )
    if (i < nProf && v) facts.profiles[i].view = v
  }
}
await cleanup()

// ---------------------------------------------------------------- output
// Values are printed with JSON.stringify for strings that may contain spaces.
const VIEW_NAMES = ['time-ordered', 'left-heavy', 'sandwich']
const q = s => JSON.stringify(String(s))
const num = n => (Number.isInteger(n) ? String(n) : String(+n.toPrecision(15)))
emit(`speedscope ${ssVersion}`)
emit(`importer ${q(importerLogs.length ? importerLogs.join(' | ').replace(/^Importing (as |from )?/, '') : 'unknown')}`)
emit(`group name=${q(facts.groupName)} view=${VIEW_NAMES[facts.viewMode] || facts.viewMode} active=${facts.indexToView}`)
if (facts.uiToolbar != null) emit(`ui_toolbar ${q(facts.uiToolbar)}`)
emit(`profiles ${facts.profiles.length}`)
facts.profiles.forEach((p, i) => {
  emit(
    `profile ${i} name=${q(p.name)} start=0 end=${num(p.total)} unit=${p.unit} total=${num(p.total)} ` +
      `nonidle=${num(p.nonIdle)} total_fmt=${q(p.totalFmt)} nonidle_fmt=${q(p.nonIdleFmt)}` +
      (p.view ? ` view_start=${num(p.view.start)} view_end=${num(p.view.end)}` : ''),
  )
})
facts.uiRows.forEach(r => emit(`ui_row ${r[0]} name=${q(r[1])} weight=${q(r[2])}`))
if (DETAIL) {
  facts.profiles.forEach((p, i) => {
    p.frames.forEach(f =>
      emit(`frame ${i} name=${q(f.name)} self=${num(f.self)} total=${num(f.total)}`),
    )
    if (p.framesTotal > p.frames.length) emit(`frames_truncated ${i} ${p.framesTotal}`)
    p.calls.forEach(c =>
      emit(`call ${i} depth=${c.depth} name=${q(c.name)} start=${num(c.start)} end=${num(c.end)}`),
    )
    if (p.callsTotal > p.calls.length) emit(`calls_truncated ${i} ${p.callsTotal}`)
  })
}
importerWarnings.slice(0, MAX_LINES).forEach(w => emit(`warning ${q(w)}`))
if (importerWarnings.length > MAX_LINES) emit(`warnings_truncated ${importerWarnings.length}`)
emit(`screenshot ${png}`)
process.stdout.write(out.join('\n') + '\n')
process.exit(0)
