// A Yjs agent in JavaScript (the yjs npm package, bundled in the repo) that syncs with the
// ModylBench shared document over stdin/stdout: one base64 y-protocols message per line.
import { Y, syncProtocol, encoding, decoding } from '../../channels/static/vendor/yjs-bundle.mjs'
import readline from 'node:readline'

const doc = new Y.Doc()
const send = (bytes) => process.stdout.write('MSG ' + Buffer.from(bytes).toString('base64') + '\n')
doc.on('update', (update, origin) => {
  if (origin === 'remote') return
  const enc = encoding.createEncoder()
  encoding.writeVarUint(enc, 0)
  syncProtocol.writeUpdate(enc, update)
  send(encoding.toUint8Array(enc))
})
const step1 = encoding.createEncoder()
encoding.writeVarUint(step1, 0)
syncProtocol.writeSyncStep1(step1, doc)
send(encoding.toUint8Array(step1))

const rl = readline.createInterface({ input: process.stdin })
for await (const line of rl) {
  if (line.startsWith('MSG ')) {
    const dec = decoding.createDecoder(Buffer.from(line.slice(4), 'base64'))
    decoding.readVarUint(dec) // message type 0: sync
    const reply = encoding.createEncoder()
    encoding.writeVarUint(reply, 0)
    syncProtocol.readSyncMessage(dec, reply, doc, 'remote')
    if (encoding.length(reply) > 1) send(encoding.toUint8Array(reply))
  } else if (line === 'EDIT') {
    const content = doc.getMap('products').get('model').get('content')
    doc.transact(() => {
      const row = new Y.Map()
      row.set('revenue', 57.5)
      content.get('income_statement').set('year1', row)
    })
    content.get('income_statement').get('year1').set('ebitda', 17.25)
    process.stdout.write('EDITED ' + JSON.stringify(doc.getMap('products').toJSON()) + '\n')
  } else if (line === 'QUIT') {
    break
  }
}
process.exit(0)
