// SPDX-License-Identifier: GPL-2.0
/* The host page of a top recording (see top_html.h). */
#include <errno.h>
#include <stdio.h>
#include "common/outfile.h"
#include "report/html.h"
#include "top_html.h"

/* The page's own script: the table and a section per process with a
 * verdict. Names only ever through textContent. */
static const char top_page_script[] =
	"(function () {\n"
	"  var doc = JSON.parse(document.getElementById('top-data').textContent);\n"
	"  function el(tag, text, cls) {\n"
	"    var e = document.createElement(tag);\n"
	"    if (text !== undefined && text !== null) e.textContent = String(text);\n"
	"    if (cls) e.className = cls;\n"
	"    return e;\n"
	"  }\n"
	"  function ms(ns) { return (ns / 1e6).toFixed(1) + ' ms'; }\n"
	"  var secs = doc.interval_ns / 1e9, h = doc.host, app = document.getElementById('app');\n"
	"  app.appendChild(el('h1', 'spinscope top: ' + doc.processes.length + ' processes over ' + secs.toFixed(1) + ' s'));\n"
	"  app.appendChild(el('p', h.ncpus + ' CPUs, load ' + h.load1.toFixed(2) + ' ' + h.load5.toFixed(2) + ' ' +\n"
	"    h.load15.toFixed(2) + ', ' + h.busy_cpus.toFixed(2) + ' CPUs busy; ' + h.processes + ' processes, ' +\n"
	"    h.threads + ' threads; tracing cost ' + (h.bpf_run_ns / doc.interval_ns * 100).toFixed(3) +\n"
	"    '% of a CPU in BPF, spinscope ' + (h.self_cpu * 100).toFixed(2) + '%; ' + h.drops + ' events dropped', 'muted'));\n"
	"  var cols = [['pid', 'PID'], ['comm', 'COMMAND'], ['container', 'CONTAINER'], ['cpus_used', 'CPUs'],\n"
	"    ['runq_ns', 'RUN QUEUE'], ['lock_wait_ns', 'LOCK WAIT'], ['event_wait_ns', 'EVENT WAIT'],\n"
	"    ['wakes', 'WAKES'], ['yields', 'YIELDS'], ['verdict', 'VERDICT']];\n"
	"  var table = el('table'), head = el('tr'), body = el('tbody'), key = 'lock_wait_ns', down = true;\n"
	"  function cell(p, k) {\n"
	"    if (k.slice(-3) === '_ns') return ms(p[k]);\n"
	"    if (k === 'cpus_used') return p[k].toFixed(2);\n"
	"    if (k === 'container') return p.container || p.unit || '-';\n"
	"    return p[k] === null ? '-' : p[k];\n"
	"  }\n"
	"  function fill() {\n"
	"    var rows = doc.processes.slice().sort(function (a, b) {\n"
	"      var x = a[key], y = b[key];\n"
	"      if (x === y) return a.pid - b.pid;\n"
	"      if (x === null) return 1;\n"
	"      if (y === null) return -1;\n"
	"      return (x < y ? -1 : 1) * (down ? -1 : 1);\n"
	"    });\n"
	"    body.textContent = '';\n"
	"    rows.forEach(function (p) {\n"
	"      var tr = el('tr');\n"
	"      cols.forEach(function (c) {\n"
	"        var td = el('td');\n"
	"        if (c[0] === 'verdict' && p.verdict) {\n"
	"          var a = el('a', p.verdict + (p.needs_full_trace ? ' (+ -p)' : ''));\n"
	"          a.href = '#p' + p.pid;\n"
	"          td.appendChild(a);\n"
	"        } else td.textContent = cell(p, c[0]);\n"
	"        tr.appendChild(td);\n"
	"      });\n"
	"      body.appendChild(tr);\n"
	"    });\n"
	"  }\n"
	"  cols.forEach(function (c) {\n"
	"    var th = el('th', c[1]);\n"
	"    th.onclick = function () { down = key === c[0] ? !down : true; key = c[0]; fill(); };\n"
	"    head.appendChild(th);\n"
	"  });\n"
	"  table.appendChild(el('thead')).appendChild(head);\n"
	"  table.appendChild(body);\n"
	"  app.appendChild(table);\n"
	"  fill();\n"
	"  app.appendChild(el('h2', 'Findings'));\n"
	"  var any = false;\n"
	"  doc.processes.forEach(function (p) {\n"
	"    if (!p.verdict) return;\n"
	"    any = true;\n"
	"    var s = el('section', null, 'finding ' + (p.verdict_severity || 'info'));\n"
	"    s.id = 'p' + p.pid;\n"
	"    s.appendChild(el('h3', p.comm + ' (pid ' + p.pid + (p.container ? ', ' + p.container : '') + '): ' +\n"
	"      p.verdict + ', ' + (p.verdict_severity || 'info')));\n"
	"    if (p.verdict_summary) s.appendChild(el('p', p.verdict_summary));\n"
	"    s.appendChild(el('p', 'Lock waits ' + ms(p.lock_wait_ns) + ' (' + p.lock_waits + '), event waits ' +\n"
	"      ms(p.event_wait_ns) + ' (' + p.event_waits + '), ' + p.yields + ' yields, ' + p.cpus_used.toFixed(2) +\n"
	"      ' CPUs used of ' + p.cpus_allowed + ', ' + p.runnable.toFixed(2) + ' threads runnable on average.', 'muted'));\n"
	"    if (p.needs_full_trace) s.appendChild(el('p', 'More needs a full trace: spinscope -p ' + p.pid +\n"
	"      ' (false sharing, spin hints, critical sections, call sites).', 'muted'));\n"
	"    var words = (p.words || []).slice(0, 8);\n"
	"    if (words.length) {\n"
	"      var wt = el('table'), wh = el('tr');\n"
	"      ['futex word', 'used as', 'waits', 'wait time', 'waiters', 'wakes', 'woken'].forEach(function (t) { wh.appendChild(el('th', t)); });\n"
	"      wt.appendChild(wh);\n"
	"      words.forEach(function (w) {\n"
	"        var tr = el('tr');\n"
	"        [w.uaddr, w.use, w.waits, ms(w.wait_ns), w.waiters, w.wakes, w.woken].forEach(function (v) { tr.appendChild(el('td', v)); });\n"
	"        wt.appendChild(tr);\n"
	"      });\n"
	"      s.appendChild(wt);\n"
	"    }\n"
	"    app.appendChild(s);\n"
	"  });\n"
	"  if (!any) app.appendChild(el('p', 'No process had a finding this data supports.'));\n"
	"})();\n";

int top_html__write(FILE *f, json_object *doc)
{
	const char *json = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!json)
		return -ENOMEM;
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
		   "<title>spinscope top</title>\n<style>\n%s"
		   "section.finding { background: var(--card); border: 1px solid var(--line); "
		   "border-radius: 6px; padding: 8px 14px; margin: 10px 0; }\n"
		   "section.critical { border-left: 5px solid #c62828; }\n"
		   "section.warning { border-left: 5px solid #ef6c00; }\n"
		   "th { cursor: pointer; text-align: left; }\n"
		   "</style></head><body><div id=\"app\"></div>\n"
		   "<script type=\"application/json\" id=\"top-data\">", html_page_style);
	if (html__write_script_json(f, json))
		return -EIO;
	fprintf(f, "</script>\n<script>\n%s</script>\n</body></html>\n", top_page_script);
	return ferror(f) ? -EIO : 0;
}

static int fill(FILE *f, void *arg)
{
	return top_html__write(f, arg);
}

int top_html__save(const char *path, json_object *doc, char *why, size_t whylen)
{
	return outfile__save_stream(path, fill, doc, why, whylen);
}
