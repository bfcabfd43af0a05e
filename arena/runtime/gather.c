/* arena.runtime._gather: wait for a line from each of several bots in one call (issue 15).

   gather(fds, timeout, limit, spin) -> list of (data, arrived, eof), one per file descriptor.

   Waits (poll(2), the GIL released) until every descriptor has given a newline, reached its end
   of file or read error, or `limit` bytes, or until `timeout` seconds have passed, and returns
   what was read from each: the bytes (b"" if nothing), the time.monotonic() of its last read, and
   whether its end was reached. The descriptors must be non-blocking (the arena's pipes are). The
   caller feeds the bytes to its line buffers and goes on as if it had read them itself: this is
   botproc.collect's wait loop, done without an interpreter round per wake-up. A signal that
   raises (Ctrl-C) is raised here, after what was read is dropped with the call's other results
   (the match is being abandoned then anyway).

   `spin` seconds (0: none) are spent looking (poll with no wait, then sched_yield) before each
   blocking poll: a bot's answer usually comes within tens of microseconds, and waking from a
   blocking poll costs about as much again on a virtual machine. Measured: `arena play` of four
   stdio bots went from 0.79 to 1.03 of a bare loop with 50 us (benchmarks/REPORT-loop.md). The
   caller spins only with a core to spare (it costs that core's cycles).
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GATHER_VERSION 2
#define MAX_FDS 64
#define CHUNK 65536

typedef struct {
    char *data;
    Py_ssize_t size, capacity;
    double arrived;
    int done, eof;
} Reading;

static double monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read what is there (until it would block); 0 on success, -1 on memory exhausted. */
static int read_ready(int fd, Reading *r, Py_ssize_t limit, double now) {
    for (;;) {
        if (r->capacity - r->size < CHUNK) {
            Py_ssize_t capacity = r->capacity ? r->capacity * 2 : CHUNK;
            while (capacity - r->size < CHUNK) capacity *= 2;
            char *grown = PyMem_RawRealloc(r->data, (size_t)capacity);
            if (grown == NULL) return -1;
            r->data = grown;
            r->capacity = capacity;
        }
        ssize_t got = read(fd, r->data + r->size, CHUNK);
        if (got < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            r->eof = r->done = 1; /* as botproc's pump: an error reads as the end */
            return 0;
        }
        if (got == 0) {
            r->eof = r->done = 1;
            return 0;
        }
        r->arrived = now;
        if (memchr(r->data + r->size, '\n', (size_t)got) != NULL) r->done = 1;
        r->size += got;
        if (r->size >= limit) r->done = 1;
        if (r->done || got < CHUNK) return 0;
    }
}

static PyObject *gather(PyObject *self, PyObject *args) {
    PyObject *fds_arg;
    double timeout;
    Py_ssize_t limit;
    double spin;
    if (!PyArg_ParseTuple(args, "Odnd", &fds_arg, &timeout, &limit, &spin)) return NULL;
    PyObject *fds_seq = PySequence_Fast(fds_arg, "fds must be a sequence");
    if (fds_seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fds_seq);
    if (n > MAX_FDS || limit < 1) {
        Py_DECREF(fds_seq);
        PyErr_SetString(PyExc_ValueError, "at most 64 descriptors, and a positive limit");
        return NULL;
    }
    int fds[MAX_FDS];
    Reading readings[MAX_FDS];
    memset(readings, 0, sizeof readings);
    for (Py_ssize_t i = 0; i < n; i++) {
        long fd = PyLong_AsLong(PySequence_Fast_GET_ITEM(fds_seq, i));
        if (fd == -1 && PyErr_Occurred()) {
            Py_DECREF(fds_seq);
            return NULL;
        }
        fds[i] = (int)fd;
    }
    Py_DECREF(fds_seq);

    PyObject *result = NULL;
    double end = monotonic_now() + timeout;
    struct pollfd polled[MAX_FDS];
    Py_ssize_t where[MAX_FDS];
    for (;;) {
        nfds_t waiting = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (readings[i].done) continue;
            polled[waiting].fd = fds[i];
            polled[waiting].events = POLLIN;
            polled[waiting].revents = 0;
            where[waiting++] = i;
        }
        if (waiting == 0) break;
        double left = end - monotonic_now();
        if (left <= 0) break;
        int ms = (int)(left * 1000.0) + 1; /* rounded up: never wake just before the end */
        int ready = 0;
        Py_BEGIN_ALLOW_THREADS
        if (spin > 0) {
            double until = monotonic_now() + (spin < left ? spin : left);
            while ((ready = poll(polled, waiting, 0)) == 0 && monotonic_now() < until) sched_yield();
        }
        if (ready == 0) ready = poll(polled, waiting, ms);
        Py_END_ALLOW_THREADS
        if (ready < 0) {
            if (errno == EINTR) {
                if (PyErr_CheckSignals() < 0) goto done;
                continue;
            }
            PyErr_SetFromErrno(PyExc_OSError);
            goto done;
        }
        if (ready == 0) continue; /* the loop's clock decides whether the time is up */
        double now = monotonic_now();
        for (nfds_t k = 0; k < waiting; k++) {
            if (polled[k].revents == 0) continue;
            if (polled[k].revents & POLLNVAL) {
                readings[where[k]].eof = readings[where[k]].done = 1;
                continue;
            }
            if (read_ready(polled[k].fd, &readings[where[k]], limit, now) < 0) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    result = PyList_New(n);
    if (result == NULL) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = Py_BuildValue(
            "(y#dO)", readings[i].data ? readings[i].data : "", readings[i].size,
            readings[i].arrived, readings[i].eof ? Py_True : Py_False);
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    for (Py_ssize_t i = 0; i < n; i++) PyMem_RawFree(readings[i].data);
    return result;
}

static PyMethodDef methods[] = {
    {"gather", gather, METH_VARARGS,
     "gather(fds, timeout, limit, spin) -> [(data, arrived, eof)]: wait for a line from each."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_gather", "Wait for a line from each of several pipes.", -1, methods,
};

PyMODINIT_FUNC PyInit__gather(void) {
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "VERSION", GATHER_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
