// The judges' Chromium (speedscope.mjs, svg_judge.mjs, svg_ui.mjs): the
// browser tests/run.sh started for the whole run where PC_BROWSER names
// it (a Playwright server's endpoint, browser_server.mjs), else one
// launched here. A Chromium start is some 4-5 s of CPU on a small
// machine, each judge's page a second or two: one browser for a run of
// the suite takes the rest. The flags are speedscope's, which draws
// with WebGL (SwiftShader: headless has no GPU); the SVG pages need
// none of it and draw the same.
export const ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--ignore-gpu-blocklist',
]
export const CHROMIUM = process.env.SS_CHROMIUM || '/usr/bin/chromium'

export async function openBrowser(chromium) {
  const ws = process.env.PC_BROWSER
  if (ws) {
    try {
      return await chromium.connect(ws)
    } catch {
      // the run's browser is gone: a browser of its own
    }
  }
  return chromium.launch({executablePath: CHROMIUM, headless: true, args: ARGS})
}
