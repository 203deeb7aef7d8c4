// One Chromium for a run of the suite (tests/report.sh's browser_start):
// prints the endpoint the judges connect to (PC_BROWSER, browser.mjs),
// then lives until its standard input closes or it is sent SIGTERM.
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {createRequire} from 'node:module'
import {ARGS, CHROMIUM} from './browser.mjs'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(HERE, 'package.json'))
const {chromium} = require('playwright-core')

const server = await chromium.launchServer({executablePath: CHROMIUM, headless: true, args: ARGS})
const stop = async () => {
  try { await server.close() } catch {}
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.stdin.on('end', stop)
process.stdin.resume()
process.stdout.write(server.wsEndpoint() + '\n')
