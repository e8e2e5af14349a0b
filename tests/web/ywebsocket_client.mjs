// A y-websocket client written against y-protocols (the vendored yjs bundle), run under Node 20 with
// --experimental-websocket. Usage: node ywebsocket_client.mjs <ws url> editor|observer
// Prints one JSON line per milestone for the Python test to read.
import { Y, syncProtocol, encoding, decoding } from '../../channels/static/vendor/yjs-bundle.mjs'

const [url, role] = process.argv.slice(2)
const doc = new Y.Doc()
const say = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const ws = new WebSocket(url)
ws.binaryType = 'arraybuffer'
const send = (enc) => ws.send(encoding.toUint8Array(enc))

doc.on('update', (update, origin) => {
  if (origin === ws) return
  const enc = encoding.createEncoder()
  encoding.writeVarUint(enc, 0)
  syncProtocol.writeUpdate(enc, update)
  send(enc)
})

let phase = 'syncing'
const products = () => doc.getMap('products').toJSON()

function step () {
  const p = products()
  const sheet = p.model?.content?.income_statement
  if (role === 'editor') {
    if (phase === 'syncing' && p.model) {
      phase = 'edited'
      const row = new Y.Map()
      row.set('revenue', 57.5)
      doc.getMap('products').get('model').get('content').get('income_statement').set('year1', row)
      say({ edited: products() })
    } else if (phase === 'edited' && sheet?.year1?.ebitda !== undefined) {
      phase = 'done'
      say({ saw: products() })
      ws.close()
    }
  } else if (phase === 'syncing' && sheet?.year1?.revenue !== undefined) {
    phase = 'tried'
    say({ saw: products() })
    doc.getMap('products').get('model').get('content').set('hacked', true)
  }
}

ws.onopen = () => {
  const enc = encoding.createEncoder()
  encoding.writeVarUint(enc, 0)
  syncProtocol.writeSyncStep1(enc, doc)
  send(enc)
  // Presence, as y-websocket's provider announces it: [1, len, [count, clientID, clock, state]].
  const inner = encoding.createEncoder()
  encoding.writeVarUint(inner, 1)
  encoding.writeVarUint(inner, doc.clientID)
  encoding.writeVarUint(inner, 0)
  encoding.writeVarString(inner, JSON.stringify({ user: role }))
  const aw = encoding.createEncoder()
  encoding.writeVarUint(aw, 1)
  encoding.writeVarUint8Array(aw, encoding.toUint8Array(inner))
  send(aw)
}
ws.onmessage = (ev) => {
  const dec = decoding.createDecoder(new Uint8Array(ev.data))
  const type = decoding.readVarUint(dec)
  if (type === 0) {
    const reply = encoding.createEncoder()
    encoding.writeVarUint(reply, 0)
    syncProtocol.readSyncMessage(dec, reply, doc, ws)
    if (encoding.length(reply) > 1) send(reply)
    step()
  } else if (type === 1) {
    say({ awareness: decoding.readVarUint8Array(dec).length })
  } else if (type === 2) {
    decoding.readVarUint(dec)
    say({ denied: decoding.readVarString(dec) })
    ws.close()
  }
}
ws.onclose = (ev) => { say({ closed: ev.code }); process.exit(0) }
ws.onerror = (ev) => { say({ error: String(ev.message || ev.type) }) }
