/* cutec._fast: the kept-call hot path of cutec.mm, cutec.gemm and cutec.elementwise in C.
 *
 * python/cutec/_calls.py keeps one packed call (cutec/packed_call.h) per call signature: the
 * kernel and each tensor's dtype, shape, strides and device.  A call whose signature was seen
 * only reads three data pointers and the current stream, writes them into the kept struct and
 * calls cutec_call_packed.  In Python that path costs a ctypes call (a GIL release, argument
 * conversion) and a dozen attribute reads through the interpreter's loop; here it is one call
 * of a builtin.  The key is built exactly as _calls.signature builds it, so both paths share one
 * dict, and the extension is optional: without it (no compiler or Python headers where the
 * package was built) the package runs the same path in Python. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "cutec/packed_call.h"

typedef cute_status (*call_packed_fn)(cutec_packed_call *call);

static call_packed_fn call_packed; /* cutec_call_packed of the library the package loaded */
static PyObject *s_dtype, *s_shape, *s_stride, *s_get_device, *s_data_ptr, *s_addr, *s_index,
    *s_stream;

static PyObject *call_method(PyObject *obj, PyObject *name)
{
#if PY_VERSION_HEX >= 0x03090000
    return PyObject_CallMethodNoArgs(obj, name);
#else
    return PyObject_CallMethodObjArgs(obj, name, NULL);
#endif
}

/* the signature of a call on tensors t[0..2] under tag: (tag, dtypes, shapes, strides,
 * devices), each group in tensor order; NULL with an exception set where a tensor lacks one */
static PyObject *signature(PyObject *tag, PyObject *const t[3])
{
    PyObject *key = PyTuple_New(13);
    if (!key)
        return NULL;
    Py_INCREF(tag);
    PyTuple_SET_ITEM(key, 0, tag);
    for (int i = 0; i < 3; i++) {
        PyObject *parts[4] = {PyObject_GetAttr(t[i], s_dtype), PyObject_GetAttr(t[i], s_shape),
                              call_method(t[i], s_stride), call_method(t[i], s_get_device)};
        for (int j = 0; j < 4; j++) {
            if (!parts[j]) {
                for (int q = j + 1; q < 4; q++)
                    Py_XDECREF(parts[q]);
                Py_DECREF(key);
                return NULL;
            }
            PyTuple_SET_ITEM(key, 1 + 3 * j + i, parts[j]);
        }
    }
    return key;
}

/* the data pointer of tensor t into *ptr: 0, or -1 with an exception set */
static int data_ptr(PyObject *t, void **ptr)
{
    PyObject *p = call_method(t, s_data_ptr);
    if (!p)
        return -1;
    *ptr = PyLong_AsVoidPtr(p);
    Py_DECREF(p);
    return *ptr == NULL && PyErr_Occurred() ? -1 : 0;
}

/* an int attribute of the kept call (its struct's address, its device index) */
static int int_attr(PyObject *obj, PyObject *name, Py_ssize_t *value)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v)
        return -1;
    *value = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    return *value == -1 && PyErr_Occurred() ? -1 : 0;
}

/* the current stream of the kept call's device, as its stream function gives it (None: 0) */
static int current_stream(PyObject *call, Py_ssize_t index, void **stream)
{
    PyObject *fn = PyObject_GetAttr(call, s_stream);
    if (!fn)
        return -1;
    PyObject *s = PyObject_CallFunction(fn, "n", index);
    Py_DECREF(fn);
    if (!s)
        return -1;
    *stream = s == Py_None ? NULL : PyLong_AsVoidPtr(s);
    Py_DECREF(s);
    return *stream == NULL && PyErr_Occurred() ? -1 : 0;
}

/* runs the kept call on tensors t with the scales; 0, or -1 with an exception set (the call's
 * own failed(status) raises cutec's error in PyTorch's terms) */
static int run_kept(PyObject *call, PyObject *const t[3], double alpha, double beta)
{
    Py_ssize_t addr, index;
    void *data[3], *stream;
    if (int_attr(call, s_addr, &addr) || int_attr(call, s_index, &index))
        return -1;
    for (int i = 0; i < 3; i++)
        if (data_ptr(t[i], &data[i]))
            return -1;
    if (current_stream(call, index, &stream))
        return -1;
    cutec_packed_call *packed = (cutec_packed_call *)addr;
    memcpy(packed->data, data, sizeof data);
    packed->data[3] = NULL;
    packed->stream = stream;
    packed->alpha = alpha;
    packed->beta = beta;
    cute_status status;
    Py_BEGIN_ALLOW_THREADS
    status = call_packed(packed);
    Py_END_ALLOW_THREADS
    if (status == CUTE_OK)
        return 0;
    PyObject *r = PyObject_CallMethod(call, "failed", "i", (int)status);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* Not a torch tensor (no dtype, shape, ...): the slow path says what is wrong */
static int not_a_tensor(void)
{
    if (!PyErr_ExceptionMatches(PyExc_AttributeError) && !PyErr_ExceptionMatches(PyExc_TypeError))
        return 0;
    PyErr_Clear();
    return 1;
}

/* run3(calls, tag, a, b, c, alpha, beta): True when the call kept in calls under the
 * signature of (tag, a, b, c) ran; else that signature (None: a tensor is not torch-like) for
 * the slow path to check, run and keep the call under */
static PyObject *run3(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 7 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "cutec._fast.run3(calls: dict, tag, a, b, c, alpha, beta)");
        return NULL;
    }
    double alpha = PyFloat_AsDouble(args[5]), beta = PyFloat_AsDouble(args[6]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *const *t = args + 2;
    PyObject *key = signature(args[1], t);
    if (!key) {
        if (not_a_tensor())
            Py_RETURN_NONE;
        return NULL;
    }
    PyObject *call = PyDict_GetItemWithError(args[0], key); /* borrowed */
    if (!call) {
        if (PyErr_Occurred()) { /* an unhashable part: not a torch tensor */
            Py_DECREF(key);
            if (not_a_tensor())
                Py_RETURN_NONE;
            return NULL;
        }
        return key;
    }
    Py_DECREF(key);
    Py_INCREF(call);
    int rc = run_kept(call, t, alpha, beta);
    Py_DECREF(call);
    if (rc)
        return NULL;
    Py_RETURN_TRUE;
}

/* init(address of cutec_call_packed, sizeof(cutec_packed_call) as the package lays it out) */
static PyObject *init(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long addr, size;
    if (!PyArg_ParseTuple(args, "KK", &addr, &size))
        return NULL;
    if (!addr || size != sizeof(cutec_packed_call)) {
        PyErr_Format(PyExc_ImportError,
                     "cutec._fast: built for a cutec_packed_call of %zu bytes, the package lays out "
                     "%llu: rebuild the package",
                     sizeof(cutec_packed_call), size);
        return NULL;
    }
    call_packed = (call_packed_fn)(uintptr_t)addr;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"run3", (PyCFunction)(void (*)(void))run3, METH_FASTCALL, "the kept call's hot path"},
    {"init", init, METH_VARARGS, "init(address of cutec_call_packed, struct size)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void);
PyMODINIT_FUNC PyInit__fast(void)
{
    PyObject **names[] = {&s_dtype, &s_shape, &s_stride, &s_get_device, &s_data_ptr,
                          &s_addr, &s_index, &s_stream};
    const char *text[] = {"dtype", "shape", "stride", "get_device", "data_ptr",
                          "addr", "index", "stream"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!(*names[i] = PyUnicode_InternFromString(text[i])))
            return NULL;
    return PyModule_Create(&module);
}
