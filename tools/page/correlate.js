(function () {
'use strict';
const D = JSON.parse(document.getElementById('cudwarf-data').textContent);
const S = D.summary; // correlate --json's image object up to "instructions" (tools/correlate_html.c)
const LH = 16, BLOCK = 400, NI = D.insn.length / 5;
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
const hex = n => '0x' + n.toString(16);
const I = (i, k) => D.insn[i * 5 + k];
const push = (m, k, v) => { const a = m.get(k); if (a) a.push(v); else m.set(k, [v]); };
const base = p => p.slice(p.lastIndexOf('/') + 1);
const cost = new Map(); let maxBytes = 1;
for (const r of D.cost) { cost.set(r[0] + ':' + r[1], r); if (r[2] > maxBytes) maxBytes = r[2]; }
const fileLines = D.files.map(() => new Set());
for (const r of D.cost) fileLines[r[0]].add(r[1]);
const srcIns = new Map(), ptxIns = new Map(), chainKeys = [];
for (let c = 0; c < D.chains.length; c++) {
  const ch = D.chains[c], keys = [];
  for (let k = 0; k < ch.length; k += 3) {
    if (ch[k] < 0) continue;
    const key = ch[k] + ':' + ch[k + 1];
    if (!keys.includes(key)) keys.push(key);
    fileLines[ch[k]].add(ch[k + 1]);
  }
  chainKeys.push(keys);
}
for (let i = 0; i < NI; i++) {
  if (I(i, 4) >= 0) for (const key of chainKeys[I(i, 4)]) push(srcIns, key, i);
  if (I(i, 2) >= 0) push(ptxIns, I(i, 2) + ':' + I(i, 3), i);
}
const chainText = c => { if (c < 0) return '(no line)'; const ch = D.chains[c], out = [];
  for (let k = 0; k < ch.length; k += 3) out.push((ch[k] >= 0 ? base(D.files[ch[k]].path) : '??') + ':' + ch[k + 1] +
    ' ' + (ch[k + 2] >= 0 ? D.funcs[ch[k + 2]] : '??'));
  return out.join('  <-  '); };
const blocks = [], where = {src: new Map(), ptx: new Map(), pc: []};
const io = new IntersectionObserver(es => { for (const e of es) if (e.isIntersecting) render(e.target._b); },
  {rootMargin: '1200px'});
function block(pane, n, html) {
  const el = document.createElement('div'); el.style.height = (n * LH) + 'px';
  document.getElementById(pane).appendChild(el);
  const b = {el: el, html: html, done: false}; el._b = b; blocks.push(b); io.observe(el); return b; }
const hl = {src: new Set(), ptx: new Set(), pc: new Set()}, need0 = []; let sel = null;
function mark(b) {
  for (const r of b.el.children) {
    const k = r.dataset.k; if (k === undefined) continue;
    if (hl[r.dataset.kind].has(k)) r.classList.add('hl');
    if (sel && sel[0] === r.dataset.kind && sel[1] === k) r.classList.add('sel');
  } }
function render(b) { if (b.done) return; b.done = true; b.el.innerHTML = b.html(); b.el.style.height = '';
  io.unobserve(b.el); mark(b); }
D.files.forEach((f, fi) => {
  const lines = f.text ? f.text.map((_, i) => i + 1) : [...fileLines[fi]].sort((a, b) => a - b);
  if (f.text) for (const l of [...fileLines[fi]].sort((a, b) => a - b)) if (l > f.text.length) lines.push(l);
  const hd = '<div class="hd">' + esc(f.path) + (f.text ? '' : '  (not found on disk: line numbers only)') + '</div>';
  for (let s = 0; s < lines.length || s === 0; s += BLOCK) {
    const part = lines.slice(s, s + BLOCK), first = s === 0;
    const b = block('src', part.length + (first ? 1 : 0), () => (first ? hd : '') + part.map(l => {
      const r = cost.get(fi + ':' + l), a = r ? 0.15 + 0.85 * r[2] / maxBytes : 0;
      return '<div class="row" data-kind="src" data-k="' + fi + ':' + l + '" data-src="' + esc(f.path + ':' + l) +
        '"><span class="heat" style="background:' + (r && r[2] ? 'rgba(220,60,0,' + a.toFixed(2) + ')' : 'transparent') +
        '"></span><span class="b">' + (r && r[2] ? r[2] : '') + '</span><span class="n">' + l + '</span>' +
        (f.text ? esc(f.text[l - 1] || '') : '') + '</div>'; }).join(''));
    for (const l of part) where.src.set(fi + ':' + l, b);
    if (!lines.length) break;
  } });
S.ptx.forEach((p, t) => {
  const text = D.ptx_text[t];
  const hd = '<div class="hd">' + esc(p.name) + ' (' + esc(p.section) + ', ' + esc(p.source) + ')</div>';
  for (let s = 0; s < text.length; s += BLOCK) {
    const first = s === 0, n = Math.min(BLOCK, text.length - s);
    const b = block('ptx', n + (first ? 1 : 0), () => { let h = first ? hd : '';
      for (let l = s + 1; l <= s + n; l++) { const k = t + ':' + l, has = ptxIns.has(k);
        h += '<div class="row' + (has ? '' : ' dim') + '" data-kind="ptx" data-k="' + k + '" data-t="' + t +
          '" data-ptx="' + l + '"><span class="n">' + l + '</span>' + esc(text[l - 1]) + '</div>'; }
      return h; });
    for (let l = s + 1; l <= s + n; l++) where.ptx.set(t + ':' + l, b);
  } });
const symAt = new Map(D.syms.map(s => [s[0], s[1]]));
for (let s = 0; s < NI; s += BLOCK) {
  const n = Math.min(BLOCK, NI - s); let heads = 0;
  for (let i = s; i < s + n; i++) if (symAt.has(i)) heads++;
  const b = block('sass', n + heads, () => { let h = '';
    for (let i = s; i < s + n; i++) {
      if (symAt.has(i)) h += '<div class="hd">' + esc(symAt.get(i)) + '  (' + esc(D.sections[I(i, 0)]) + ')</div>';
      h += '<div class="row" data-kind="pc" data-k="' + i + '" data-section="' + esc(D.sections[I(i, 0)]) +
        '" data-pc="' + hex(I(i, 1)) + '" title="' + esc(chainText(I(i, 4))) + '"><span class="n">' +
        hex(I(i, 1)).slice(2).padStart(6, '0') + '</span><span class="w">' + D.words[i] + '</span>  <span class="p">' +
        (I(i, 2) >= 0 ? 'ptx ' + I(i, 3) : '') + '</span></div>'; }
    return h; });
  for (let i = s; i < s + n; i++) where.pc[i] = b;
}
function show(kind, key) {
  for (const e of document.querySelectorAll('.hl, .sel')) e.classList.remove('hl', 'sel');
  hl.src.clear(); hl.ptx.clear(); hl.pc.clear(); sel = [kind, key];
  let pcs = [];
  if (kind === 'src') { pcs = srcIns.get(key) || []; hl.src.add(key); }
  else if (kind === 'ptx') { pcs = ptxIns.get(key) || []; hl.ptx.add(key); }
  else pcs = [Number(key)];
  (kind === 'pc' ? where.pc[Number(key)] : where[kind].get(key)) && need0.push(kind === 'pc' ? where.pc[Number(key)] : where[kind].get(key));
  for (const i of pcs) { hl.pc.add(String(i));
    if (kind !== 'ptx' && I(i, 2) >= 0) hl.ptx.add(I(i, 2) + ':' + I(i, 3));
    if (kind !== 'src' && I(i, 4) >= 0) for (const k of chainKeys[I(i, 4)]) hl.src.add(k); }
  const need = new Set(need0.splice(0));
  for (const k of hl.src) if (where.src.get(k)) need.add(where.src.get(k));
  for (const k of hl.ptx) if (where.ptx.get(k)) need.add(where.ptx.get(k));
  for (const i of hl.pc) need.add(where.pc[i]);
  for (const b of need) if (b.done) mark(b); else render(b);
  for (const pane of ['src', 'ptx', 'sass']) {
    const own = (pane === 'sass' ? 'pc' : pane) === kind;
    const e = document.querySelector('#' + pane + (own ? ' .sel' : ' .hl'));
    if (e) e.scrollIntoView({block: own ? 'nearest' : 'center'}); } }
function rowOf(t) { while (t && !(t.dataset && t.dataset.kind)) t = t.parentElement; return t; }
document.querySelector('main').addEventListener('click', ev => { const r = rowOf(ev.target);
  if (r) show(r.dataset.kind, r.dataset.k); });
const status = document.getElementById('status');
document.querySelector('main').addEventListener('mouseover', ev => { const r = rowOf(ev.target); if (!r) return;
  const k = r.dataset.k;
  if (r.dataset.kind === 'pc') { const i = Number(k);
    status.textContent = D.sections[I(i, 0)] + '+' + hex(I(i, 1)) + (I(i, 2) >= 0 ? '  ptx ' + I(i, 3) : '') +
      '  ' + chainText(I(i, 4)); }
  else if (r.dataset.kind === 'ptx') { const p = ptxIns.get(k) || [];
    status.textContent = 'PTX line ' + r.dataset.ptx + ': ' + p.length + ' SASS instructions' +
      (p.length ? '  ' + chainText(I(p[0], 4)) : ''); }
  else { const c = cost.get(k) || [0, 0, 0, 0, 0, 0];
    status.textContent = r.dataset.src + ': ' + c[2] + ' SASS bytes, ' + c[3] + ' with inlined callees, ' + c[4] +
      ' instructions, ' + c[5] + ' PTX instructions'; } });
document.getElementById('title').textContent = 'cudwarf correlate: ' + S.image + ' (sm_' + S.sm + ')';
document.getElementById('summary').textContent = NI + ' SASS instructions, ' + S.sass_bytes + ' bytes; ' +
  S.with_line + ' with a source line, ' + S.with_ptx + ' with a PTX line, ' + S.disagree +
  ' whose line-table frames differ from what the PTX .loc says' + (S.capsule_bytes ? '; ' + S.capsule_bytes +
  ' bytes of Mercury capsules (code, not SASS) not shown' : '');
const missing = D.files.filter(f => !f.text).length;
document.getElementById('notes').textContent = (missing ? missing + ' of ' + D.files.length +
  ' source files not found on disk: line numbers only (cudwarf correlate --prefix OLD=NEW). ' : '') +
  'PTX: ' + (S.ptx.map(p => p.name + ' (' + p.source + ')').join(', ') || 'none') +
  '. SASS is shown as instruction words: cudwarf has no disassembler.';
for (const pane of ['src', 'ptx', 'sass']) { const b = blocks.find(x => x.el.parentElement.id === pane); if (b) render(b); }
const m = /^#click=(src|ptx|pc):(.*)$/.exec(decodeURIComponent(location.hash));
if (m) { let key = null, at = m[2].lastIndexOf(':'), a = m[2].slice(0, at), v = m[2].slice(at + 1);
  if (m[1] === 'src') { const fi = D.files.findIndex(f => f.path === a); if (fi >= 0) key = fi + ':' + v; }
  else if (m[1] === 'ptx') key = a + ':' + v;
  else for (let i = 0; i < NI; i++) if (D.sections[I(i, 0)] === a && I(i, 1) === Number(v)) { key = String(i); break; }
  const b = key === null ? null : m[1] === 'pc' ? where.pc[Number(key)] : where[m[1]].get(key);
  if (b) { render(b); const e = b.el.querySelector('[data-k="' + key + '"]'); if (e) e.click(); } }
document.documentElement.setAttribute('data-cudwarf-ready', '1');
})();
