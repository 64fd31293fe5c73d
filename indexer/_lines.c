/* The per-hit work of a search in native code: see indexer/lines.py, whose Python
 * functions are the reference these must equal (tests compare them).
 *
 * Why C: a search for a common word returns ~200k lines, and in Python each one costs
 * ~2 us (find its bounds, count the newlines before it, decode it, make a tuple); here
 * it is a few hundred nanoseconds, most of it CPython's own str and tuple creation.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* first: it sets _GNU_SOURCE, which declares memrchr and memmem */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Newlines in p[0:n]. Sixteen bytes per step, counted in byte lanes that are summed
 * before they can overflow (255 steps); ~10 GB/s against bytes.count's ~2.5 GB/s. */
static Py_ssize_t
count_newlines(const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t total = 0;
#if defined(__SSE2__)
    const __m128i newline = _mm_set1_epi8('\n');
    while (n >= 16) {
        Py_ssize_t steps = n / 16 > 255 ? 255 : n / 16;
        __m128i lanes = _mm_setzero_si128();
        for (Py_ssize_t i = 0; i < steps; i++, p += 16) {
            __m128i chunk = _mm_loadu_si128((const __m128i *)p);
            lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(chunk, newline));
        }
        n -= steps * 16;
        __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
        total += _mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4);
    }
#endif
    for (Py_ssize_t i = 0; i < n; i++) {
        total += p[i] == '\n';
    }
    return total;
}

/* Start of the line holding offset `at` (data.rfind(b"\n", 0, at) + 1). */
static Py_ssize_t
line_start(const char *p, Py_ssize_t at)
{
#if defined(__GLIBC__)
    const char *newline = memrchr(p, '\n', (size_t)at);
    return newline == NULL ? 0 : newline - p + 1;
#else
    while (at > 0 && p[at - 1] != '\n') {
        at--;
    }
    return at;
#endif
}

/* End of the line holding offset `at`: its newline, or `size` for the last line. */
static Py_ssize_t
line_end(const char *p, Py_ssize_t at, Py_ssize_t size)
{
    const char *newline = memchr(p + at, '\n', (size_t)(size - at));
    return newline == NULL ? size : newline - p;
}

/* data.find(needle, from), or -1 (from >= 0). */
static Py_ssize_t
find(const char *p, Py_ssize_t size, const char *needle, Py_ssize_t length, Py_ssize_t from)
{
    if (from > size || length > size - from) {
        return -1;
    }
    if (length == 0) {
        return from;
    }
#if defined(__GLIBC__)
    const char *found = memmem(p + from, (size_t)(size - from), needle, (size_t)length);
    return found == NULL ? -1 : found - p;
#else
    const char *last = p + size - length;
    for (const char *at = p + from; at <= last; at++) {
        at = memchr(at, needle[0], (size_t)(last - at + 1));
        if (at == NULL) {
            return -1;
        }
        if (memcmp(at, needle, (size_t)length) == 0) {
            return at - p;
        }
    }
    return -1;
#endif
}

/* Appends (start, end) to `out`; -1 on failure (an exception is set). */
static int
append_span(PyObject *out, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *span = PyTuple_New(2);
    if (span == NULL) {
        return -1;
    }
    PyObject *a = PyLong_FromSsize_t(start);
    PyObject *b = a == NULL ? NULL : PyLong_FromSsize_t(end);
    if (b == NULL) {
        Py_XDECREF(a);
        Py_DECREF(span);
        return -1;
    }
    PyTuple_SET_ITEM(span, 0, a);
    PyTuple_SET_ITEM(span, 1, b);
    PyObject_GC_UnTrack(span); /* see make_line */
    int failed = PyList_Append(out, span);
    Py_DECREF(span);
    return failed;
}

PyDoc_STRVAR(find_doc,
"find(hay, needle, start) -> int\n\n"
"hay.find(needle, start) for start >= 0, with glibc's memmem: 2-4x faster than\n"
"bytes.find on source text (measured: `Error(` over the stdlib, 4.6 against 10.3 ms).");

static PyObject *
find_bytes(PyObject *module, PyObject *args)
{
    const char *hay, *needle;
    Py_ssize_t size, length, start;
    if (!PyArg_ParseTuple(args, "y#y#n:find", &hay, &size, &needle, &length, &start)) {
        return NULL;
    }
    if (start < 0) {
        PyErr_SetString(PyExc_ValueError, "start must be >= 0");
        return NULL;
    }
    return PyLong_FromSsize_t(find(hay, size, needle, length, start));
}

PyDoc_STRVAR(literal_spans_doc,
"literal_spans(hay, needle, first, limit) -> list[tuple[int, int]]\n\n"
"(start, end) of up to `limit` lines holding `needle`, searched from `first`.");

static PyObject *
literal_spans(PyObject *module, PyObject *args)
{
    const char *hay, *needle;
    Py_ssize_t size, length, first, limit;
    if (!PyArg_ParseTuple(args, "y#y#nn:literal_spans", &hay, &size, &needle, &length, &first,
                          &limit)) {
        return NULL;
    }
    if (length == 0 || memchr(needle, '\n', (size_t)length) != NULL) {
        PyErr_SetString(PyExc_ValueError, "the needle must be non-empty and hold no newline");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        return NULL;
    }
    Py_ssize_t at = find(hay, size, needle, length, first < 0 ? 0 : first);
    while (at >= 0 && limit > 0) {
        Py_ssize_t start = line_start(hay, at), end = line_end(hay, at, size);
        if (append_span(out, start, end) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        limit--;
        at = find(hay, size, needle, length, end + 1);
    }
    return out;
}

PyDoc_STRVAR(spans_from_ends_doc,
"spans_from_ends(data, ends, limit) -> list[tuple[int, int]]\n\n"
"(start, end) of up to `limit` lines in which a match ends; `ends` ascending, each in\n"
"1..len(data) (a match is never empty and never spans a newline).");

static PyObject *
spans_from_ends(PyObject *module, PyObject *args)
{
    const char *data;
    Py_ssize_t size, limit;
    PyObject *ends_arg;
    if (!PyArg_ParseTuple(args, "y#On:spans_from_ends", &data, &size, &ends_arg, &limit)) {
        return NULL;
    }
    PyObject *ends = PySequence_Fast(ends_arg, "ends must be a sequence of int");
    if (ends == NULL) {
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        Py_DECREF(ends);
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(ends), taken = 0, end_of_line = -1;
    PyObject **items = PySequence_Fast_ITEMS(ends);
    for (Py_ssize_t i = 0; i < count && taken < limit; i++) {
        Py_ssize_t end = PyLong_AsSsize_t(items[i]);
        if (end == -1 && PyErr_Occurred()) {
            goto fail;
        }
        if (end < 1 || end > size) {
            PyErr_Format(PyExc_ValueError, "match end %zd outside 1..%zd", end, size);
            goto fail;
        }
        if (end <= end_of_line) {
            continue; /* another match on a line already taken */
        }
        end_of_line = line_end(data, end - 1, size);
        if (append_span(out, line_start(data, end - 1), end_of_line) < 0) {
            goto fail;
        }
        taken++;
    }
    Py_DECREF(ends);
    return out;
fail:
    Py_DECREF(ends);
    Py_DECREF(out);
    return NULL;
}

/* The shown text of data[start:end]: at most `max_chars` characters (then "…"), no
 * trailing "\r", invalid UTF-8 replaced. Only a prefix is decoded: a minified line can
 * be megabytes. Stripping "\r" bytes before decoding equals stripping it after: "\r"
 * is never part of a multi-byte sequence. */
static PyObject *
line_text(const char *p, Py_ssize_t start, Py_ssize_t end, Py_ssize_t max_chars,
          PyObject *ellipsis)
{
    Py_ssize_t longest = 4 * max_chars + 4;
    Py_ssize_t stop = end - start > longest ? start + longest : end;
    while (stop > start && p[stop - 1] == '\r') {
        stop--;
    }
    PyObject *text = PyUnicode_DecodeUTF8(p + start, stop - start, "replace");
    if (text == NULL || PyUnicode_GET_LENGTH(text) <= max_chars) {
        return text;
    }
    PyObject *head = PyUnicode_Substring(text, 0, max_chars);
    Py_DECREF(text);
    if (head == NULL) {
        return NULL;
    }
    PyObject *shown = PyUnicode_Concat(head, ellipsis);
    Py_DECREF(head);
    return shown;
}

/* (start, end) of one span, checked against what came before and the data's size. */
static int
read_span(PyObject *item, Py_ssize_t counted, Py_ssize_t size, Py_ssize_t *start,
          Py_ssize_t *end)
{
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
        PyErr_SetString(PyExc_TypeError, "spans must be (start, end) tuples");
        return -1;
    }
    *start = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
    if (*start == -1 && PyErr_Occurred()) {
        return -1;
    }
    *end = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
    if (*end == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (*start < counted || *end < *start || *end > size) {
        PyErr_Format(PyExc_ValueError, "span (%zd, %zd) out of order or outside 0..%zd", *start,
                     *end, size);
        return -1;
    }
    return 0;
}

/* A new line_type(path, number, text, True), or NULL with an exception set. */
static PyObject *
make_line(PyTypeObject *line_type, PyObject *path, const char *data, Py_ssize_t start,
          Py_ssize_t end, Py_ssize_t number, Py_ssize_t max_chars, PyObject *ellipsis)
{
    PyObject *text = line_text(data, start, end, max_chars, ellipsis);
    PyObject *line = text == NULL ? NULL : line_type->tp_alloc(line_type, 4);
    PyObject *number_obj = line == NULL ? NULL : PyLong_FromSsize_t(number);
    if (number_obj == NULL) {
        Py_XDECREF(text);
        Py_XDECREF(line);
        return NULL;
    }
    /* As tuple.__new__ fills a tuple subclass made by tp_alloc. */
    Py_INCREF(path);
    PyTuple_SET_ITEM(line, 0, path);
    PyTuple_SET_ITEM(line, 1, number_obj);
    PyTuple_SET_ITEM(line, 2, text);
    Py_INCREF(Py_True);
    PyTuple_SET_ITEM(line, 3, Py_True);
    /* A str, an int and a bool cannot be part of a cycle, so the cyclic collector need
     * not track the line (it untracks such plain tuples itself, but never a tuple
     * subclass); nor a tuple of such lines, which is how they are returned. Tracked,
     * 200k lines made the collections during a search cost more than the search (76
     * of 116 ms for 197k lines, measured); in a list, each full collection still
     * visited every line (7 ms each). */
    PyObject_GC_UnTrack(line);
    return line;
}

static int
check_line_args(PyTypeObject *line_type, Py_ssize_t max_chars)
{
    if (!PyType_IsSubtype(line_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "line_type must be a tuple subclass");
        return -1;
    }
    if (max_chars < 0) {
        PyErr_SetString(PyExc_ValueError, "max_chars must be >= 0");
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(numbered_lines_doc,
"numbered_lines(line_type, path, data, spans, max_chars) -> tuple\n\n"
"line_type(path, number, text, True) for each (start, end) in `spans` (ascending):\n"
"`number` 1-based, `text` as indexer.lines.line_text. `line_type` is a tuple subclass.");

static PyObject *
numbered_lines(PyObject *module, PyObject *args)
{
    PyTypeObject *line_type;
    PyObject *path, *spans_arg;
    const char *data;
    Py_ssize_t size, max_chars;
    if (!PyArg_ParseTuple(args, "O!Uy#On:numbered_lines", &PyType_Type, &line_type, &path,
                          &data, &size, &spans_arg, &max_chars)) {
        return NULL;
    }
    if (check_line_args(line_type, max_chars) < 0) {
        return NULL;
    }
    PyObject *spans = PySequence_Fast(spans_arg, "spans must be a sequence");
    if (spans == NULL) {
        return NULL;
    }
    PyObject *ellipsis = PyUnicode_FromString("\xe2\x80\xa6");
    Py_ssize_t count = PySequence_Fast_GET_SIZE(spans);
    PyObject *out = ellipsis == NULL ? NULL : PyTuple_New(count);
    if (out == NULL) {
        goto fail;
    }
    PyObject **items = PySequence_Fast_ITEMS(spans);
    Py_ssize_t number = 1, counted = 0, start, end;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (read_span(items[i], counted, size, &start, &end) < 0) {
            goto fail;
        }
        number += count_newlines((const unsigned char *)data + counted, start - counted);
        counted = start;
        PyObject *line = make_line(line_type, path, data, start, end, number, max_chars, ellipsis);
        if (line == NULL) {
            goto fail;
        }
        PyTuple_SET_ITEM(out, i, line);
    }
    Py_DECREF(spans);
    Py_DECREF(ellipsis);
    PyObject_GC_UnTrack(out); /* see make_line */
    return out;
fail:
    Py_DECREF(spans);
    Py_XDECREF(ellipsis);
    Py_XDECREF(out); /* its unset items are NULL, which tuple_dealloc skips */
    return NULL;
}

PyDoc_STRVAR(literal_lines_doc,
"literal_lines(line_type, path, data, hay, needle, first, limit, max_chars) -> tuple\n\n"
"numbered_lines(line_type, path, data, literal_spans(hay, needle, first, limit),\n"
"max_chars) in one pass, without the spans. `hay` is `data` as searched (lower-cased\n"
"for a case-insensitive search: the same length, the same newlines).");

static PyObject *
literal_lines(PyObject *module, PyObject *args)
{
    PyTypeObject *line_type;
    PyObject *path;
    const char *data, *hay, *needle;
    Py_ssize_t size, hay_size, length, first, limit, max_chars;
    if (!PyArg_ParseTuple(args, "O!Uy#y#y#nnn:literal_lines", &PyType_Type, &line_type, &path,
                          &data, &size, &hay, &hay_size, &needle, &length, &first, &limit,
                          &max_chars)) {
        return NULL;
    }
    if (check_line_args(line_type, max_chars) < 0) {
        return NULL;
    }
    if (hay_size != size) {
        PyErr_SetString(PyExc_ValueError, "hay and data must have the same length");
        return NULL;
    }
    if (length == 0 || memchr(needle, '\n', (size_t)length) != NULL) {
        PyErr_SetString(PyExc_ValueError, "the needle must be non-empty and hold no newline");
        return NULL;
    }
    PyObject *ellipsis = PyUnicode_FromString("\xe2\x80\xa6");
    PyObject *out = ellipsis == NULL ? NULL : PyList_New(0);
    if (out == NULL) {
        Py_XDECREF(ellipsis);
        return NULL;
    }
    Py_ssize_t number = 1, counted = 0;
    Py_ssize_t at = find(hay, size, needle, length, first < 0 ? 0 : first);
    while (at >= 0 && limit > 0) {
        Py_ssize_t start = line_start(hay, at), end = line_end(hay, at, size);
        number += count_newlines((const unsigned char *)hay + counted, start - counted);
        counted = start;
        PyObject *line = make_line(line_type, path, data, start, end, number, max_chars, ellipsis);
        if (line == NULL || PyList_Append(out, line) < 0) {
            Py_XDECREF(line);
            Py_DECREF(out);
            Py_DECREF(ellipsis);
            return NULL;
        }
        Py_DECREF(line);
        limit--;
        at = find(hay, size, needle, length, end + 1);
    }
    Py_DECREF(ellipsis);
    PyObject *lines = PyList_AsTuple(out);
    Py_DECREF(out);
    if (lines != NULL) {
        PyObject_GC_UnTrack(lines); /* see make_line */
    }
    return lines;
}

static PyMethodDef methods[] = {
    {"find", find_bytes, METH_VARARGS, find_doc},
    {"literal_spans", literal_spans, METH_VARARGS, literal_spans_doc},
    {"spans_from_ends", spans_from_ends, METH_VARARGS, spans_from_ends_doc},
    {"numbered_lines", numbered_lines, METH_VARARGS, numbered_lines_doc},
    {"literal_lines", literal_lines, METH_VARARGS, literal_lines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "indexer._lines",
    .m_doc = "Native per-hit work of a search; indexer/lines.py is the reference.",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__lines(void)
{
    return PyModuleDef_Init(&module_def);
}
