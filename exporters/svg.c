/* A flame graph in one SVG file, as flamegraph.pl and inferno draw them
 * from folded stacks, with nothing to fetch when it is viewed: the tree
 * of frames folded.c builds (one frame per function name along a path,
 * the narrow ones merged into their callers), each frame a rectangle as
 * wide as its inclusive value, the outermost at the bottom, callees
 * above their callers, siblings by name. A frame's colour depends on its
 * name only (the same function has the same colour wherever it is). The
 * script in the file zooms on a click (the frame fills the width, its
 * callers stay below it), searches (a pattern; the matches turn purple
 * and their share of the total, counted once where they nest, is shown)
 * and shows the name, value and share of the frame under the pointer.
 * Frames narrower than 0.1 pixel are not drawn (they were merged into
 * their callers already at the default --min-width). Of two runs
 * compared (profconv diff), a differential flame graph: widths NEW's,
 * colours by the change of each frame's self value, as flamegraph.pl
 * draws one. flamegraph.pl's options that users script with are
 * struct pc_svg_opts (a title, a subtitle, the width, a frame's height,
 * an icicle graph, palettes, the unit; a callers graph is folded.c's,
 * which reverses the stacks); the zoom, the search and its case stay in
 * the page's URL (location.hash), so a view can be shared. The frames
 * are one <g> below the root: Chromium took 2-4 times as long to load
 * the same <g> elements each directly below the root. A frame has no
 * attribute of its own (8 on its rect and text, flamegraph.pl's have 9):
 * its name is in its title, its exact geometry in one <metadata> after
 * the frames, which the script reads at the first zoom or search; with
 * six data-* attributes on each frame, Chromium loaded cc1plus's SVG
 * 15-30% slower than flamegraph.pl's. */
#include "stacks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1200.0 /* the frames' width, by default */
#define ROW 16      /* a frame's height, by default */
#define PAD_TOP 46  /* the title, the search line */
#define PAD_SUB 18  /* a subtitle's line */
#define PAD_BOTTOM 24 /* the details line */
#define CHAR_W 7.0  /* an average character at font-size 12 */

/* name as XML text or an attribute's value: markup characters as
 * entities; each byte that is not UTF-8, and each of a control character
 * or U+FFFE/U+FFFF (not XML characters), as \xHH text; at most max
 * characters of it, ".." after a name cut. Nothing of a name can end
 * the text or the attribute (always in double quotes) it stands in. */
static void put_xml(FILE *f, const char *name, size_t max)
{
	char *esc = pc_text_escape(name);
	const char *s = esc ? esc : name;
	size_t n = 0;
	for (; *s; s++) {
		/* (a character starts at a byte that is not 10xxxxxx: the
		 * cut falls between characters) */
		if (((unsigned char)*s & 0xc0) != 0x80 && n++ == max)
			break;
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
	if (*s)
		fputs("..", f);
	free(esc);
}

/* A colour from the name (FNV-1a), stable from run to run: warm ones,
 * or those of flamegraph.pl's palettes (each a colour per name, as its
 * --hash gives). */
static void colour(const char *name, int pal, unsigned *r, unsigned *g,
		   unsigned *b)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 16777619u;
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;
	switch (pal) {
	case PC_SVG_COLORS_HOT:
		*r = 205 + (unsigned)(50 * v3);
		*g = (unsigned)(230 * v1);
		*b = (unsigned)(55 * v2);
		break;
	case PC_SVG_COLORS_MEM:
		*r = 0;
		*g = 190 + (unsigned)(50 * v2);
		*b = (unsigned)(210 * v1);
		break;
	case PC_SVG_COLORS_IO:
		*r = *g = 80 + (unsigned)(60 * v1);
		*b = 190 + (unsigned)(55 * v2);
		break;
	default:
		*r = 205 + (h & 0x3f) % 50;
		*g = 80 + ((h >> 8) & 0xff) % 150;
		*b = 30 + ((h >> 16) & 0xff) % 50;
	}
}

/* A frame among its caller's callees: by caller, then name, then index
 * (callees drawn left to right by name, as flamegraph.pl does). */
struct kid {
	uint32_t parent, i;
	const char *name;
};
static int cmp_kid(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The script, after "var W=" and the frames' width. It does nothing
 * per frame as the file loads: the frames' geometry (x, w, d of each, in
 * document order) is read from the metadata at the first zoom or search,
 * and a frame's name from its title (all but the value part, which holds
 * as many " (" as the root's title after "all"); names are written as
 * text only. The page's URL keeps the view: #z=N (the zoomed frame, the
 * N-th of the file), s=PATTERN, ic=1. */
static const char SCRIPT[] =
	",fs=$('frames'),frames=fs.children,geo=null,k=-1,marked=[],zoomed=-1,pat='',ic=false;\n"
	"function $(id){return document.getElementById(id);}\n"
	"function G(){if(!geo){var a=$('geometry').textContent.trim().split(' ');"
	"geo=new Float64Array(a.length);for(var i=0;i<a.length;i++)geo[i]=+a[i];}return geo;}\n"
	"function name(g){var t=g.firstChild.textContent,e=t.length;"
	"if(k<0)k=frames[0].firstChild.textContent.substring(3).split(' (').length-1;"
	"for(var j=0;j<k;j++)e=t.lastIndexOf(' (',e-1);return t.substring(0,e);}\n"
	"function fit(g){var t=g.children[2],r=g.children[1];"
	"var w=+r.getAttribute('width'),n=name(g);"
	"var c=Math.floor((w-6)/" "7" ");"
	"t.textContent=c<3?'':n.length<=c?n:n.substring(0,c-2)+'..';}\n"
	"function at(e){var g=e.target;while(g&&g.parentNode!==fs)g=g.parentNode;return g;}\n"
	"function init(){"
	"fs.addEventListener('click',function(e){var g=at(e);if(g){zoom(Array.prototype.indexOf.call(frames,g));save();}});"
	"fs.addEventListener('mouseover',function(e){var g=at(e);if(g)$('details').textContent=g.firstChild.textContent;});"
	"fs.addEventListener('mouseout',function(e){$('details').textContent=' ';});"
	"$('reset').addEventListener('click',function(){zoom(-1);save();});"
	"$('search').addEventListener('click',ask);"
	"$('ic').addEventListener('click',toggle);"
	"window.addEventListener('keydown',function(e){var k=(e.key||'').toLowerCase();"
	"if(!(e.ctrlKey||e.metaKey)||e.altKey)return;"
	"if(k==='f'){e.preventDefault();ask();}else if(k==='i'){e.preventDefault();toggle();}});"
	"load();}\n"
	"function zoom(z){var a=G(),x0=z>=0?a[3*z]:0,w0=z>=0?a[3*z+1]:1,d0=z>=0?a[3*z+2]:0;"
	"zoomed=z;$('reset').style.opacity=z>=0?1:0;"
	"for(var i=0;i<frames.length;i++){var g=frames[i],x=a[3*i],w=a[3*i+1],d=a[3*i+2];"
	"var r=g.children[1],t=g.children[2];"
	"var inside=x>=x0-1e-12&&x+w<=x0+w0+1e-12,below=d<d0&&x<=x0+1e-12&&x+w>=x0+w0-1e-12;"
	"if(z<0||inside||below){var nx=inside?(x-x0)/w0*W:0,nw=inside?w/w0*W:W;"
	"g.style.display='';r.setAttribute('x',nx+10);r.setAttribute('width',Math.max(nw-0.5,0.1));"
	"t.setAttribute('x',nx+13);g.style.opacity=below&&z>=0?0.6:1;fit(g);}"
	"else g.style.display='none';}}\n"
	"function ask(){var p=prompt('Search for (a regular expression'+(ic?', any case':'')+'):',pat);"
	"if(p===null)return;pat=p;mark();save();}\n"
	"function toggle(){ic=!ic;mark();save();}\n"
	"function mark(){$('ic').style.opacity=ic?1:0.35;var re=null;"
	"if(pat){try{re=new RegExp(pat,ic?'i':'');}catch(e){$('matched').textContent='Bad pattern: '+e.message;return;}}"
	"for(var i=0;i<marked.length;i++){var r=marked[i];r.setAttribute('fill',r.pcFill);}"
	"var sum=0,spans=[],a=re?G():null;marked=[];"
	"for(var i=0;re&&i<frames.length;i++){var g=frames[i];"
	"if(re.test(name(g))){var r=g.children[1];r.pcFill=r.getAttribute('fill');r.setAttribute('fill','rgb(230,0,230)');marked.push(r);"
	"var x=a[3*i],w=a[3*i+1],inner=false;"
	"for(var j=0;j<spans.length;j++)if(x>=spans[j][0]-1e-12&&x+w<=spans[j][1]+1e-12)inner=true;"
	"if(!inner){spans.push([x,x+w]);sum+=w;}}}"
	"$('matched').textContent=re?'Matched: '+(100*sum).toFixed(2)+'%':' ';}\n"
	"function load(){var h=location.hash.substring(1).split('&'),z=-1;"
	"for(var i=0;i<h.length;i++){var k=h[i].indexOf('=');if(k<0)continue;"
	"var n=h[i].substring(0,k),v;try{v=decodeURIComponent(h[i].substring(k+1));}catch(e){continue;}"
	"if(n==='z'&&/^[0-9]+$/.test(v)&&+v<frames.length)z=+v;"
	"else if(n==='s')pat=v;else if(n==='ic')ic=v==='1';}"
	"if(z>=0)zoom(z);if(pat||ic)mark();}\n"
	"function save(){var p=[];if(zoomed>=0)p.push('z='+zoomed);"
	"if(pat)p.push('s='+encodeURIComponent(pat));if(ic)p.push('ic=1');"
	"var h=p.length?'#'+p.join('&'):location.pathname+location.search;"
	"try{history.replaceState(null,'',h);}catch(e){location.hash=p.join('&');}}\n"
	"init();\n"
	"]]></script>\n";

/* v in the fewest significant digits that read back as v (15 to 17) */
static void put_num(FILE *f, double v)
{
	char b[32];
	int p = 15;
	do
		snprintf(b, sizeof b, "%.*g", p, v);
	while (p++ < 17 && strtod(b, NULL) != v);
	fputs(b, f);
}

/* Of two runs compared: a frame's colour by the change of its self
 * value (as flamegraph.pl colours a differential graph): red where it
 * grew, blue where it shrank, the deeper the larger the change of the
 * largest (d of dmax); grey where it did not change. */
static void change_colour(double d, double dmax, unsigned *r, unsigned *g,
			  unsigned *b)
{
	double s = dmax > 0 ? fabs(d) / dmax : 0;
	unsigned c = (unsigned)lround(220 - 170 * s);
	if (!(d != 0))
		*r = *g = *b = 225;
	else if (d > 0)
		*r = 255, *g = *b = c;
	else
		*r = *g = c, *b = 255;
}

/* "12 unit" and, of two runs compared, "in NEW, 10 in BASE: +2, +20.00%" */
static void put_value(FILE *f, double v, double vb, const char *unit,
		      int diff)
{
	fprintf(f, "%.0f ", v);
	put_xml(f, unit, 4096);
	if (!diff)
		return;
	fprintf(f, " in NEW, %.0f in BASE: %+.0f", vb, v - vb);
	if (vb > 0)
		fprintf(f, ", %+.2f%%", 100 * (v - vb) / vb);
}

int pc_svg_write(FILE *f, const struct pc_fnode *n, size_t len,
		 const char *merged, const char *title, const char *note,
		 const char *metric, const char *unit, double scale, int diff,
		 const struct pc_svg_opts *o, double *gone)
{
	double WW = o->width ? o->width : WIDTH; /* the frames' width */
	int row = o->frame_height ? (int)o->frame_height : ROW;
	double top = PAD_TOP + (o->subtitle || note ? PAD_SUB : 0);
	double bar = top - 8; /* the line of Reset zoom and Search */
	if (o->count_name)
		unit = o->count_name;
	else if (!unit || !strcmp(unit, "count"))
		unit = metric;
	if (o->title)
		title = o->title;
	/* inclusive values (nodes come after their parents), and BASE's */
	double *incl = pc_xcalloc(len + 1, sizeof(double));
	double *inclb = pc_xcalloc(len + 1, sizeof(double));
	double dmax = 0;
	for (size_t i = len; i-- > 1;) {
		if (n[i].name == merged)
			continue;
		incl[i] += n[i].v > 0 ? n[i].v : 0;
		incl[n[i].parent] += incl[i];
		inclb[i] += n[i].b > 0 ? n[i].b : 0;
		inclb[n[i].parent] += inclb[i];
		dmax = fmax(dmax, fabs(n[i].v - n[i].b));
	}
	double total = incl[0];
	*gone = 0;
	for (size_t i = 1; diff && i < len; i++)
		if (n[i].name != merged && !(incl[i] > 0))
			*gone += n[i].b > 0 ? n[i].b : 0;
	/* callees per frame, by name: one sort of them all */
	uint32_t *start = pc_xcalloc(len + 2, sizeof(uint32_t));
	uint32_t *kids = pc_xmalloc((len + 1) * sizeof(uint32_t));
	struct kid *kv = pc_xmalloc((len + 1) * sizeof(*kv));
	size_t nk = 0;
	for (size_t i = 1; i < len; i++)
		if (n[i].name != merged && incl[i] > 0) {
			kv[nk++] = (struct kid){ n[i].parent, (uint32_t)i,
						 n[i].name };
			start[n[i].parent + 1]++;
		}
	qsort(kv, nk, sizeof(*kv), cmp_kid);
	for (size_t i = 0; i < nk; i++)
		kids[i] = kv[i].i;
	free(kv);
	for (size_t i = 0; i < len; i++)
		start[i + 1] += start[i];
	size_t depth = 0;
	uint32_t *d = pc_xcalloc(len + 1, sizeof(uint32_t));
	for (size_t i = 1; i < len; i++)
		if (n[i].name != merged) {
			d[i] = d[n[i].parent] + 1;
			depth = d[i] > depth ? d[i] : depth;
		}
	double height = top + PAD_BOTTOM + (double)(depth + 1) * row;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:Verdana,sans-serif;font-size:12px;"
		"fill:#000}#frames>g:hover>rect{stroke:#000;stroke-width:0.5}"
		"#reset,#search,#ic{cursor:pointer}</style>\n",
		WW + 20, height, WW + 20, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		"<text x=\"%.0f\" y=\"20\" text-anchor=\"middle\" "
		"style=\"font-size:16px\">", (WW + 20) / 2);
	put_xml(f, title && *title ? title : "Flame graph", 200);
	fputs("</text>\n", f);
	/* the subtitle: --subtitle's, and where the tree was cut */
	if (o->subtitle || note) {
		fprintf(f, "<text x=\"%.0f\" y=\"38\" text-anchor=\"middle\" "
			"id=\"subtitle\">", (WW + 20) / 2);
		if (o->subtitle)
			put_xml(f, o->subtitle, 200);
		if (o->subtitle && note)
			fputs(". ", f);
		if (note)
			put_xml(f, note, 400);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text x=\"10\" y=\"%.0f\" id=\"reset\" "
		"style=\"opacity:0\">Reset zoom</text>\n", bar);
	if (diff)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">"
			"Widths: NEW. Red: grew from BASE, blue: shrank (self "
			"value)</text>\n", (WW + 20) / 2, bar);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" id=\"search\" "
		"text-anchor=\"end\">Search</text>\n"
		"<text x=\"%.0f\" y=\"%.0f\" id=\"ic\" text-anchor=\"end\" "
		"style=\"opacity:0.35\">ic</text>\n"
		"<text x=\"%.0f\" y=\"%.0f\" id=\"matched\" "
		"text-anchor=\"end\"> </text>\n"
		"<text x=\"10\" y=\"%.0f\" id=\"details\"> </text>\n"
		"<g id=\"frames\">\n",
		WW + 10, bar, WW - 45, bar, WW + 10, height - 8, height - 8);
	/* the frames, depth first from the outermost: x within [0, 1);
	 * those drawn in order[] (for the geometry after them) */
	double *x = pc_xcalloc(len + 1, sizeof(double));
	uint32_t *stack = pc_xmalloc((len + 1) * sizeof(uint32_t));
	uint32_t *order = pc_xmalloc((len + 1) * sizeof(uint32_t));
	size_t sp = 0, no = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		double w = total > 0 ? incl[i] / total : 0;
		double px = w * WW;
		if (px >= 0.1 || i == 0) {
			const char *nm = i ? n[i].name : "all";
			unsigned r = 250, g = 200, b = 200;
			if (i && diff)
				change_colour(n[i].v - n[i].b, dmax, &r, &g, &b);
			else if (i)
				colour(nm, o->colors, &r, &g, &b);
			double y = o->inverted ? top + (double)d[i] * row :
				height - PAD_BOTTOM - (double)(d[i] + 1) * row;
			double v = incl[i] * scale;
			order[no++] = i;
			fputs("<g><title>", f);
			put_xml(f, nm, 4096);
			fputs(" (", f);
			put_value(f, v, inclb[i] * scale, unit, diff);
			fprintf(f, ", %.2f%%)</title>", 100 * w);
			fprintf(f, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
				"height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
				10 + x[i] * WW, y, px > 0.6 ? px - 0.5 : px,
				row - 1, r, g, b);
			fprintf(f, "<text x=\"%.2f\" y=\"%.0f\">",
				13 + x[i] * WW, y + row - 4);
			double c = floor((px - 6) / CHAR_W);
			if (c >= 3)
				put_xml(f, nm, (size_t)c - 2);
			fputs("</text></g>\n", f);
		}
		/* callees left to right: pushed in reverse */
		double at = x[i];
		for (uint32_t k = start[i]; k < start[i + 1]; k++) {
			x[kids[k]] = at;
			at += total > 0 ? incl[kids[k]] / total : 0;
		}
		for (uint32_t k = start[i + 1]; k-- > start[i];)
			stack[sp++] = kids[k];
	}
	/* each drawn frame's x, width (shares of the total) and depth */
	fputs("</g>\n<metadata id=\"geometry\">", f);
	for (size_t k = 0; k < no; k++) {
		uint32_t i = order[k];
		put_num(f, x[i]);
		fputc(' ', f);
		put_num(f, total > 0 ? incl[i] / total : 0);
		fprintf(f, " %u%s", d[i], k + 1 < no ? " " : "");
	}
	fputs("</metadata>\n", f);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"'use strict';\nvar W=%.0f", WW);
	fputs(SCRIPT, f);
	fputs("</svg>\n", f);
	free(order);
	free(stack);
	free(x);
	free(d);
	free(kids);
	free(start);
	free(incl);
	free(inclb);
	return 0;
}
