// The ModylBench meeting page: a person joins as the agent over the browser's own WebRTC stack
// (docs/protocol.md), or watches read-only as an observer (docs/web.md). Hand-written, no build step;
// Yjs is the vendored bundle served by the harness.
import { Y, syncProtocol, encoding, decoding } from '/static/vendor/yjs-bundle.mjs'

const $ = (id) => document.getElementById(id)
const params = new URLSearchParams(location.hash.slice(1))
const meetingId = params.get('meeting') || ''
const token = params.get('token') || params.get('observer') || ''
const role = params.get('token') ? 'agent' : 'observer'
const wsBase = `ws://${location.host}`
const CHUNK = 16384
const HIGH_WATER = 1 << 20
const LOW_WATER = 256 * 1024

// State the page exposes for people debugging it and for the browser tests (tests/web).
const mb = {
  role, events: [], turn: null, files: {}, sent: {}, pc: null, doc: null, connected: false, result: null,
  waiters: [],
  /** Resolve when an entry matching pred is (or was, at index >= from) in mb.events. */
  waitFor (pred, from = 0) {
    const hit = this.events.slice(from).find(pred)
    if (hit) return Promise.resolve(hit)
    return new Promise((resolve) => this.waiters.push({ pred, resolve }))
  }
}
window.mb = mb

function note (entry) {
  mb.events.push(entry)
  if (mb.events.length > 5000) mb.events.splice(0, 1000)
  mb.waiters = mb.waiters.filter((w) => {
    let hit = false
    try { hit = w.pred(entry) } catch { hit = false }
    if (hit) w.resolve(entry)
    return !hit
  })
}

function setStatus (text, cls = '') {
  const s = $('status')
  s.textContent = text
  s.className = 'badge ' + cls
}

function addLine (listId, text, cls = '') {
  const li = document.createElement('li')
  li.textContent = text
  if (cls) li.className = cls
  const list = $(listId)
  list.append(li)
  while (list.children.length > 500) list.firstChild.remove()
  list.scrollTop = list.scrollHeight
}

const fmtTime = (t) => (typeof t === 'number' ? t.toFixed(1) + 's' : '')

// ------------------------------------------------------------------ info and event feed

async function api (name) {
  const r = await fetch(`/api/${encodeURIComponent(meetingId)}/${name}`, { headers: { Authorization: `Bearer ${token}` } })
  if (!r.ok) throw new Error(`${name}: HTTP ${r.status}`)
  return r
}

async function loadInfo () {
  try {
    const info = await (await api('info')).json()
    $('title').textContent = info.title || 'ModylBench meeting'
    $('goal').textContent = `${info.persona || ''} — goal: ${info.meeting_goal || ''}`
    for (const p of info.products || []) {
      const b = document.createElement('button')
      b.textContent = `create ${p.product_id} (${p.output_type})`
      b.title = p.description || ''
      b.dataset.productId = p.product_id
      b.addEventListener('click', () => createProduct(p.product_id, p.output_type, p.description || p.product_id))
      $('suggested').append(b)
    }
  } catch (e) {
    setStatus('cannot load the meeting: ' + e.message, 'bad')
  }
}

function openFeed () {
  const ws = new WebSocket(`${wsBase}/feed/${encodeURIComponent(meetingId)}?token=${encodeURIComponent(token)}`)
  ws.onmessage = (ev) => {
    let msg
    try { msg = JSON.parse(ev.data) } catch { return }
    if (msg.type === 'event') onRecorded(msg)
    else if (msg.type === 'meeting_over') { setStatus('meeting over — scoring…'); note({ kind: 'meeting_over', ...msg }) }
    else if (msg.type === 'scorecard') showScorecard(msg)
  }
  ws.onclose = () => { if (!mb.result) addLine('timeline', 'event feed closed') }
}

function onRecorded (ev) {
  const t = fmtTime(ev.meeting_time)
  switch (ev.event) {
    case 'turn_start': addLine('timeline', `${t} turn ${ev.turn_index} starts (${ev.phase})`); break
    case 'turn_end': addLine('timeline', `${t} turn ${ev.turn_index} ends: ${ev.reason}`); break
    case 'persona_utterance':
      addLine('timeline', `${t} persona: ${ev.text}`, 'from-persona')
      if (role === 'observer') $('caption').textContent = ev.text
      break
    case 'agent_speech': addLine('timeline', `${t} agent spoke ${(ev.offset - ev.onset).toFixed(1)}s${ev.transcript ? ': ' + ev.transcript : ''}`, 'from-agent'); break
    case 'chat_message': if (role === 'observer') addLine('chat-log', `${ev.sender}: ${ev.text}`, 'from-' + ev.sender); break
    case 'file_transfer':
      if (role === 'observer') addLine('files', `${ev.direction === 'to_agent' ? '→ agent' : '← agent'} ${ev.name} (${ev.size} B)${ev.ok ? '' : ' failed: ' + ev.reason}`)
      break
    case 'screen_frame':
      addLine('timeline', `${t} screen: ${ev.title || ev.slide_id}`)
      if (role === 'observer' && ev.image_sha256) showStill(ev.image_sha256)
      break
    case 'session_end': addLine('timeline', `${t} session ends: ${ev.termination_reason}`); break
    case 'error': addLine('timeline', `${t} ${ev.source} error: ${ev.kind} ${ev.message}`); break
    case 'disconnect': addLine('timeline', `${t} ${ev.participant} disconnected: ${ev.reason}`); break
    default: break
  }
  note({ kind: 'recorded', ...ev })
}

async function showStill (sha) {
  try {
    const blob = await (await api('screen/' + sha)).blob()
    const img = $('screen-still')
    if (img.src) URL.revokeObjectURL(img.src)
    img.src = URL.createObjectURL(blob)
    img.hidden = false
    $('screen').hidden = true
  } catch (e) { addLine('timeline', 'screen image unavailable: ' + e.message) }
}

async function showScorecard (msg) {
  mb.result = msg
  setStatus('meeting over', 'ok')
  const box = $('scorecard')
  box.textContent = ''
  for (const run of msg.summary.runs) {
    const table = document.createElement('table')
    const rows = [['score', run.score], ['tier', run.tier], ['journey', run.journey], ['destination', run.destination],
      ['passed', run.passed], ['ended', run.termination_reason], ['flags', run.flags.join(', ') || '—']]
    for (const p of run.products) rows.push([`product ${p.product_id || '?'} (${p.output_type})`, p.score])
    for (const [k, v] of rows) {
      const tr = table.insertRow()
      const th = document.createElement('th')
      th.textContent = k
      tr.append(th)
      tr.insertCell().textContent = v === null || v === undefined ? '—' : String(v)
    }
    box.append(table)
  }
  const report = $('report')
  report.textContent = `Session folder: ${msg.session_folder}. `
  if (msg.report) {
    try {
      const blob = await (await api('report.html')).blob()
      const a = document.createElement('a')
      a.href = URL.createObjectURL(blob)
      a.download = 'report.html'
      a.id = 'report-link'
      a.textContent = 'Download the report (report.html)'
      report.append(a)
    } catch (e) { report.append('report unavailable: ' + e.message) }
  }
  $('result').hidden = false
  note({ kind: 'scorecard', ...msg })
}

// ------------------------------------------------------------------ shared document

const doc = new Y.Doc()
mb.doc = doc
const products = doc.getMap('products')
let docSend = null // function(Uint8Array) once a doc transport is open

function syncMessage (write) {
  const enc = encoding.createEncoder()
  encoding.writeVarUint(enc, 0)
  write(enc)
  return encoding.toUint8Array(enc)
}

doc.on('update', (update, origin) => {
  if (origin === 'remote' || !docSend) return
  docSend(syncMessage((enc) => syncProtocol.writeUpdate(enc, update)))
})

/** Handle one y-protocols message from the harness; returns a reply or null. */
function onDocMessage (data) {
  const dec = decoding.createDecoder(new Uint8Array(data))
  const type = decoding.readVarUint(dec)
  if (type === 0) {
    const enc = encoding.createEncoder()
    encoding.writeVarUint(enc, 0)
    syncProtocol.readSyncMessage(dec, enc, doc, 'remote')
    return encoding.length(enc) > 1 ? encoding.toUint8Array(enc) : null
  }
  if (type === 2) {
    decoding.readVarUint(dec)
    addLine('timeline', 'document: ' + decoding.readVarString(dec))
  }
  return null
}

function toY (value) {
  if (Array.isArray(value)) { const a = new Y.Array(); a.push(value.map(toY)); return a }
  if (value && typeof value === 'object') { const m = new Y.Map(); for (const [k, v] of Object.entries(value)) m.set(k, toY(v)); return m }
  return value
}

const SKELETONS = {
  spreadsheet: () => ({ sheet1: {} }),
  document: (title) => ({ title, sections: [] }),
  list: () => ({ items: [] }),
  chart: (title) => ({ chart_type: 'bar', title, x_label: '', y_label: '', categories: [], series: [] }),
  dashboard: (title) => ({ title, widgets: {} }),
  kv: () => ({})
}

function createProduct (id, type, title) {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id) || products.has(id)) return
  const entry = new Y.Map()
  entry.set('type', type)
  entry.set('title', title || id)
  entry.set('content', toY((SKELETONS[type] || SKELETONS.kv)(title || id)))
  products.set(id, entry)
}

/** A cell typed by a person: numbers become numbers, =... a formula cell, empty null. */
function parseCell (text) {
  const t = text.trim()
  if (t === '') return null
  if (t.startsWith('=')) return toY({ value: null, formula: t })
  const n = Number(t.replace(/,/g, ''))
  if (!Number.isNaN(n) && /^[-+]?[\d,.]+(e[-+]?\d+)?$/i.test(t)) return n
  if (t === 'true' || t === 'false') return t === 'true'
  return t
}

function showCell (v) {
  if (v === null || v === undefined) return ''
  if (typeof v === 'object') return v.formula || (v.value === undefined ? JSON.stringify(v) : String(v.value))
  return String(v)
}

function parseJSONish (text) {
  try { return JSON.parse(text) } catch { return parseCell(text) }
}

function input (key, value, onCommit, tag = 'input') {
  const el = document.createElement(tag)
  el.value = value
  el.dataset.key = key
  el.readOnly = role === 'observer'
  el.addEventListener('change', () => onCommit(el.value))
  return el
}

function adder (placeholder, label, onAdd) {
  const box = document.createElement('span')
  const name = document.createElement('input')
  name.placeholder = placeholder
  name.dataset.key = 'adder:' + placeholder
  const b = document.createElement('button')
  b.textContent = label
  b.addEventListener('click', () => { const v = name.value.trim(); if (v) { onAdd(v); name.value = '' } })
  box.append(name, b)
  return box
}

function renderSpreadsheet (pid, content, box) {
  for (const [sheetName, sheet] of content.entries()) {
    if (!(sheet instanceof Y.Map)) continue
    const h = document.createElement('h4')
    h.textContent = sheetName
    const table = document.createElement('table')
    table.className = 'sheet'
    const rows = [...sheet.entries()].filter(([, r]) => r instanceof Y.Map)
    const cols = []
    for (const [, r] of rows) for (const c of r.keys()) if (!cols.includes(c)) cols.push(c)
    const head = table.createTHead().insertRow()
    head.append(document.createElement('th'))
    for (const c of cols) { const th = document.createElement('th'); th.textContent = c; head.append(th) }
    for (const [rowName, row] of rows) {
      const tr = table.insertRow()
      const th = document.createElement('th')
      th.textContent = rowName
      tr.append(th)
      for (const c of cols) {
        tr.insertCell().append(input(`${pid}/${sheetName}/${rowName}/${c}`, showCell(row.get(c)?.toJSON ? row.get(c).toJSON() : row.get(c)),
          (v) => row.set(c, parseCell(v))))
      }
    }
    const adders = document.createElement('div')
    adders.className = 'adders agent-only'
    adders.append(
      adder(`row in ${sheetName}`, 'add row', (name) => { if (!sheet.has(name)) sheet.set(name, toY(Object.fromEntries(cols.map((c) => [c, null])))) }),
      adder(`column in ${sheetName}`, 'add column', (name) => doc.transact(() => {
        if (rows.length === 0) sheet.set('row1', new Y.Map())
        for (const [, r] of sheet.entries()) if (r instanceof Y.Map && !r.has(name)) r.set(name, null)
      })))
    box.append(h, table, adders)
  }
  const more = document.createElement('div')
  more.className = 'adders agent-only'
  more.append(adder('new sheet', 'add sheet', (name) => { if (!content.has(name)) content.set(name, new Y.Map()) }))
  box.append(more)
}

function renderDocument (pid, content, box) {
  box.append(input(`${pid}/title`, String(content.get('title') ?? ''), (v) => content.set('title', v)))
  let sections = content.get('sections')
  if (!(sections instanceof Y.Array)) { if (role === 'observer') return; sections = null }
  sections?.toArray().forEach((s, i) => {
    if (!(s instanceof Y.Map)) return
    const t = input(`${pid}/sections/${i}/title`, String(s.get('title') ?? ''), (v) => s.set('title', v))
    const body = input(`${pid}/sections/${i}/text`, String(s.get('text') ?? ''), (v) => s.set('text', v), 'textarea')
    box.append(t, body)
  })
  const adders = document.createElement('div')
  adders.className = 'adders agent-only'
  adders.append(adder('section title', 'add section', (title) => {
    if (!(content.get('sections') instanceof Y.Array)) content.set('sections', new Y.Array())
    content.get('sections').push([toY({ title, text: '' })])
  }))
  box.append(adders)
}

function renderGeneric (pid, content, box) {
  // kv, list, chart, dashboard: each top-level field is edited as JSON.
  for (const [k, v] of content.entries()) {
    const row = document.createElement('div')
    row.className = 'kv-row'
    const code = document.createElement('code')
    code.textContent = k
    const shown = v && v.toJSON ? JSON.stringify(v.toJSON()) : (typeof v === 'string' ? v : JSON.stringify(v))
    row.append(code, input(`${pid}/${k}`, shown ?? '', (text) => content.set(k, toY(parseJSONish(text)))))
    box.append(row)
  }
  const adders = document.createElement('div')
  adders.className = 'adders agent-only'
  adders.append(adder('key', 'add key', (k) => { if (!content.has(k)) content.set(k, null) }))
  box.append(adders)
}

let renderQueued = false
function render () {
  if (renderQueued) return
  renderQueued = true
  queueMicrotask(() => {
    renderQueued = false
    const focused = document.activeElement?.dataset?.key
    const keep = focused ? document.activeElement.value : null
    const root = $('products')
    root.textContent = ''
    for (const [pid, entry] of products.entries()) {
      if (!(entry instanceof Y.Map)) continue
      const box = document.createElement('div')
      box.className = 'product'
      box.dataset.productId = pid
      const h = document.createElement('h3')
      h.textContent = `${pid} — ${entry.get('title') ?? ''} (${entry.get('type')})`
      box.append(h)
      const content = entry.get('content')
      if (content instanceof Y.Map) {
        const type = entry.get('type')
        if (type === 'spreadsheet') renderSpreadsheet(pid, content, box)
        else if (type === 'document') renderDocument(pid, content, box)
        else renderGeneric(pid, content, box)
      }
      root.append(box)
    }
    if (focused) {
      // Someone else's edit must not throw away what the person is typing.
      const el = [...root.querySelectorAll('[data-key]')].find((e) => e.dataset.key === focused)
      if (el) { el.value = keep; el.focus() }
    }
    for (const b of $('suggested').querySelectorAll('button')) b.disabled = products.has(b.dataset.productId)
    note({ kind: 'doc', products: products.toJSON() })
  })
}
products.observeDeep(render)

$('create').addEventListener('click', () => {
  const id = $('new-id').value.trim()
  createProduct(id, $('new-type').value, id)
  $('new-id').value = ''
})

function openObserverDoc () {
  const ws = new WebSocket(`${wsBase}/doc/${encodeURIComponent(meetingId)}?token=${encodeURIComponent(token)}`)
  ws.binaryType = 'arraybuffer'
  ws.onopen = () => {
    $('doc-status').textContent = 'live (read-only)'
    ws.send(syncMessage((enc) => syncProtocol.writeSyncStep1(enc, doc)))
  }
  ws.onmessage = (ev) => { const reply = onDocMessage(ev.data); if (reply) ws.send(reply) }
  ws.onclose = () => { $('doc-status').textContent = 'closed' }
}

// ------------------------------------------------------------------ joining as the agent (WebRTC)

let control = null
let chat = null
let filesChannel = null
const incoming = new Map()

function sendControl (obj) { if (control?.readyState === 'open') control.send(JSON.stringify(obj)) }

function onControl (msg) {
  if (msg.type === 'hello') {
    mb.connected = true
    setStatus('connected', 'ok')
  } else if (msg.type === 'turn_start') {
    mb.turn = msg.turn_index
    $('turn').textContent = `turn ${msg.turn_index} (${msg.phase})`
    $('done').disabled = false
  } else if (msg.type === 'turn_end') {
    $('turn').textContent = `turn ${msg.turn_index}: your answer is due`
  } else if (msg.type === 'caption') {
    $('caption').textContent = msg.text
  } else if (msg.type === 'meeting_end') {
    setStatus('meeting over — scoring…')
    $('done').disabled = true
  }
  note({ kind: 'control', ...msg })
}

function onChat (msg) {
  if (msg.type !== 'chat') return
  addLine('chat-log', `${msg.sender || 'persona'}: ${msg.text}`, 'from-persona')
  note({ kind: 'chat', ...msg })
}

async function sha256Hex (bytes) {
  const digest = await crypto.subtle.digest('SHA-256', bytes)
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

async function onFileMessage (data) {
  if (typeof data !== 'string') {
    const bytes = new Uint8Array(data)
    const id = new TextDecoder().decode(bytes.subarray(1, 1 + bytes[0]))
    const t = incoming.get(id)
    if (!t) return
    t.parts.push(bytes.slice(1 + bytes[0]))
    t.received += bytes.length - 1 - bytes[0]
    if (t.received > t.size) {
      incoming.delete(id)
      filesChannel.send(JSON.stringify({ type: 'file_error', id, reason: 'file_overrun' }))
    }
    return
  }
  let msg
  try { msg = JSON.parse(data) } catch { return }
  if (msg.type === 'file_start') {
    if (incoming.size >= 4 || msg.size > 50 * 1024 * 1024) {
      filesChannel.send(JSON.stringify({ type: 'file_error', id: msg.id, reason: msg.size > 50 * 1024 * 1024 ? 'file_too_large' : 'too_many_transfers' }))
      return
    }
    incoming.set(msg.id, { ...msg, parts: [], received: 0 })
  } else if (msg.type === 'file_end') {
    const t = incoming.get(msg.id)
    if (!t) return
    incoming.delete(msg.id)
    const blob = new Blob(t.parts, { type: t.media_type })
    const bytes = new Uint8Array(await blob.arrayBuffer())
    const sha = await sha256Hex(bytes)
    const ok = sha === t.sha256 && bytes.length === t.size
    filesChannel.send(JSON.stringify(ok ? { type: 'file_ack', id: t.id, sha256: sha } : { type: 'file_error', id: t.id, reason: 'sha256_mismatch' }))
    mb.files[t.name] = { size: bytes.length, sha256: sha, ok, declared: t.sha256 }
    const li = document.createElement('li')
    const a = document.createElement('a')
    a.href = URL.createObjectURL(blob)
    a.download = t.name
    a.textContent = `${t.name} (${bytes.length} B)`
    li.append('received ', a, ok ? ' ✓ sha256 verified' : ' ✗ corrupt')
    $('files').append(li)
    note({ kind: 'file_received', name: t.name, ok, sha256: sha })
  } else if (msg.type === 'file_ack' || msg.type === 'file_error') {
    const s = mb.sent[msg.id]
    if (s) { s.reply = msg; s.resolve(msg) }
    addLine('files', `sent ${s ? s.name : msg.id}: ${msg.type === 'file_ack' ? 'acknowledged ✓' : 'refused: ' + msg.reason}`)
    note({ kind: 'file_reply', ...msg })
  }
}

function drained (ch) {
  if (ch.bufferedAmount <= HIGH_WATER) return Promise.resolve()
  return new Promise((resolve) => { ch.addEventListener('bufferedamountlow', () => resolve(), { once: true }) })
}

async function sendFile (name, bytes, mediaType) {
  const id = 'web' + Math.random().toString(36).slice(2, 12)
  const sha = await sha256Hex(bytes)
  const done = new Promise((resolve) => { mb.sent[id] = { name, resolve } })
  filesChannel.send(JSON.stringify({ type: 'file_start', id, name, media_type: mediaType || 'application/octet-stream', size: bytes.length, sha256: sha }))
  const idBytes = new TextEncoder().encode(id)
  for (let off = 0; off < bytes.length; off += CHUNK) {
    const payload = bytes.subarray(off, off + CHUNK)
    const msg = new Uint8Array(1 + idBytes.length + payload.length)
    msg[0] = idBytes.length
    msg.set(idBytes, 1)
    msg.set(payload, 1 + idBytes.length)
    await drained(filesChannel)
    filesChannel.send(msg)
  }
  filesChannel.send(JSON.stringify({ type: 'file_end', id }))
  return done
}
mb.sendFile = sendFile

async function join () {
  setStatus('joining…')
  const pc = new RTCPeerConnection({ iceServers: [] })
  mb.pc = pc
  const audio = pc.addTransceiver('audio', { direction: 'sendrecv' })
  pc.addTransceiver('video', { direction: 'recvonly' })
  try {
    const mic = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true }, video: false })
    const track = mic.getAudioTracks()[0]
    await audio.sender.replaceTrack(track)
    track.enabled = $('mic').checked // unticked before the microphone was granted: stay muted
    $('mic').addEventListener('change', () => { track.enabled = $('mic').checked })
  } catch (e) {
    addLine('timeline', 'no microphone: ' + e.message + ' (you can still chat and edit)')
    $('mic').disabled = true
  }
  pc.ontrack = (ev) => {
    const stream = ev.streams[0] || new MediaStream([ev.track])
    if (ev.track.kind === 'audio') $('persona-audio').srcObject = stream
    else $('screen').srcObject = stream
  }
  pc.onconnectionstatechange = () => {
    note({ kind: 'pc', state: pc.connectionState })
    if (pc.connectionState === 'failed') setStatus('connection failed', 'bad')
  }
  control = pc.createDataChannel('control')
  chat = pc.createDataChannel('chat')
  filesChannel = pc.createDataChannel('files')
  const docChannel = pc.createDataChannel('doc')
  filesChannel.binaryType = 'arraybuffer'
  filesChannel.bufferedAmountLowThreshold = LOW_WATER
  docChannel.binaryType = 'arraybuffer'
  control.onmessage = (ev) => { try { onControl(JSON.parse(ev.data)) } catch (e) { console.warn(e) } }
  chat.onmessage = (ev) => { try { onChat(JSON.parse(ev.data)) } catch (e) { console.warn(e) } }
  filesChannel.onmessage = (ev) => { onFileMessage(ev.data).catch((e) => console.warn(e)) }
  docChannel.onmessage = (ev) => { const reply = onDocMessage(ev.data); if (reply) docChannel.send(reply) }
  docChannel.onopen = () => {
    docSend = (bytes) => docChannel.send(bytes)
    $('doc-status').textContent = 'live'
    docChannel.send(syncMessage((enc) => syncProtocol.writeSyncStep1(enc, doc)))
  }
  docChannel.onclose = () => { docSend = null; $('doc-status').textContent = 'closed' }

  await pc.setLocalDescription(await pc.createOffer())
  // Non-trickle ICE: the offer carries every candidate.
  if (pc.iceGatheringState !== 'complete') {
    await new Promise((resolve) => {
      pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') resolve() })
    })
  }
  const ws = new WebSocket(`${wsBase}/meetings/${encodeURIComponent(meetingId)}?token=${encodeURIComponent(token)}`)
  ws.onopen = () => ws.send(JSON.stringify({ type: 'offer', sdp: pc.localDescription.sdp }))
  ws.onmessage = async (ev) => {
    const msg = JSON.parse(ev.data)
    if (msg.type === 'answer') await pc.setRemoteDescription({ type: 'answer', sdp: msg.sdp })
    else if (msg.type === 'error') setStatus(`refused: ${msg.code} ${msg.message}`, 'bad')
  }
  ws.onclose = (ev) => {
    note({ kind: 'signaling_closed', code: ev.code })
    if (!mb.result && ev.code !== 1000) setStatus(`signaling closed (${ev.code} ${ev.reason})`, 'bad')
  }
  window.addEventListener('beforeunload', () => { try { ws.send(JSON.stringify({ type: 'bye' })) } catch {} })
}

$('chat-form').addEventListener('submit', (ev) => {
  ev.preventDefault()
  const text = $('chat-input').value.trim()
  if (!text || chat?.readyState !== 'open') return
  chat.send(JSON.stringify({ type: 'chat', text }))
  addLine('chat-log', `you: ${text}`, 'from-agent')
  $('chat-input').value = ''
  note({ kind: 'chat_sent', text })
})

$('file-form').addEventListener('submit', async (ev) => {
  ev.preventDefault()
  const file = $('file-input').files[0]
  if (!file || filesChannel?.readyState !== 'open') return
  if (file.size > 50 * 1024 * 1024) { addLine('files', `${file.name}: over the 50 MiB limit`); return }
  await sendFile(file.name, new Uint8Array(await file.arrayBuffer()), file.type)
})

$('say').addEventListener('click', () => {
  const text = $('transcript').value.trim()
  if (text) { sendControl({ type: 'transcript', text }); $('transcript').value = '' }
})

$('done').addEventListener('click', () => {
  sendControl({ type: 'done', turn_index: mb.turn })
  $('done').disabled = true
  $('turn').textContent = `turn ${mb.turn}: done sent`
  note({ kind: 'done_sent', turn_index: mb.turn })
})

// ------------------------------------------------------------------ start

$('role').textContent = role === 'agent' ? 'you are the agent' : 'observer (read-only)'
document.body.classList.add(role)
if (!meetingId || !token) {
  setStatus('open the URL printed by "modylbench serve --web" (it carries the meeting and token after #)', 'bad')
} else {
  loadInfo()
  openFeed()
  if (role === 'agent') join().catch((e) => setStatus('cannot join: ' + e.message, 'bad'))
  else { setStatus('watching'); openObserverDoc() }
}
