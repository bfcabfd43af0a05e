/* The reference bot's Take 5 playout loop in C: Round.play_plain of __init__.py, step for step.
 *
 * Built with the arena (setup.py compiles it into the bot's folder as _playout, for the
 * interpreter the arena runs bots with); __init__.py falls back to its own pure-Python loop when
 * the module is missing or was built from another version of this file (PLAYOUT_DIGEST, the
 * SHA-256 of this file, compiled in). Both loops make the same choices from the same random
 * draws: the same arithmetic in the same order on IEEE doubles (built with -ffp-contract=off, so
 * no fused multiply-add changes a rounding), libm's exp as Python's math.exp, and the draws taken
 * from the caller's own generator. tests/kit/test_reference_bot.py checks them against each other.
 *
 * play_plain(ends, lens, rheads, order, hands, heads, unseen, wild, draw, forced_seat,
 *            forced_card) -> None
 *   ends, lens, rheads, order: the rows in the order of their ends (end, length, heads, index in
 *     the rules); hands: each seat's sorted hand (emptied as it plays); heads: each seat's heads
 *     this round (added to); unseen: 1 for each card nobody has seen (cleared as cards show);
 *   wild: per seat, true if it plays at random; draw: a callable giving floats in [0, 1) (None
 *     if no seat is wild); forced_seat: the seat whose first card is forced_card, or -1.
 * configure(heads_table, row_limit): the rules' constants, once, before any play_plain.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#ifndef PLAYOUT_DIGEST
#define PLAYOUT_DIGEST ""
#endif

#define MAX_SEATS 16
#define MAX_HAND 64
#define MAX_ROWS 16
#define MAX_CARD 1024
#define NO_ROW_ABOVE (1L << 30)

static long heads_of[MAX_CARD];
static Py_ssize_t cards_known = 0; /* 0: configure() not called yet */
static long row_limit = 0;

/* The ints of a list (at most cap of them) into out; their count, or -1 with an error set. */
static Py_ssize_t read_longs(PyObject *list, long *out, Py_ssize_t cap, const char *what) {
    if (!PyList_Check(list)) {
        PyErr_Format(PyExc_TypeError, "%s: a list is needed", what);
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    if (n > cap) {
        PyErr_Format(PyExc_ValueError, "%s: at most %zd items", what, cap);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        out[i] = v;
    }
    return n;
}

static int card_ok(long card, Py_ssize_t unseen_len) {
    if (card < 0 || card >= unseen_len || card >= cards_known) {
        PyErr_Format(PyExc_IndexError, "card %ld is out of range", card);
        return 0;
    }
    return 1;
}

/* Python's bisect_right and bisect_left on a sorted array. */
static int bisect_right(const long *a, int n, long x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x < a[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

static int bisect_left(const long *a, int n, long x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static long pop_at(long *hand, int *size, int at) {
    long card = hand[at];
    for (int i = at; i < *size - 1; i++) hand[i] = hand[i + 1];
    (*size)--;
    return card;
}

/* list.remove: the index of card in hand, taken out; -1 with ValueError if it is not there. */
static int remove_card(long *hand, int *size, long card) {
    for (int i = 0; i < *size; i++) {
        if (hand[i] == card) {
            pop_at(hand, size, i);
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "the forced card %ld is not in the hand", card);
    return -1;
}

/* One float from draw(); -1.0 with an error set when it fails. */
static double draw_one(PyObject *draw) {
    if (draw == Py_None) {
        PyErr_SetString(PyExc_TypeError, "a wild seat needs a draw");
        return -1.0;
    }
    PyObject *value = PyObject_CallNoArgs(draw);
    if (value == NULL) return -1.0;
    double x = PyFloat_AsDouble(value);
    Py_DECREF(value);
    if (x == -1.0 && PyErr_Occurred()) return -1.0;
    return x;
}

typedef struct {
    int rows, seats;
    long ends[MAX_ROWS], lens[MAX_ROWS], rheads[MAX_ROWS], order[MAX_ROWS];
    long hand[MAX_SEATS][MAX_HAND];
    int size[MAX_SEATS];
    long heads[MAX_SEATS];
    int wild[MAX_SEATS];
    unsigned char unseen[MAX_CARD];
    Py_ssize_t unseen_len;
    long hidden;
} Playout;

/* The card the heuristic's rule picks from seat s's hand (and takes out of it). */
static long rule_card(Playout *p, int s, double scale, double cheapest) {
    long *hand = p->hand[s];
    int size = p->size[s], best = 0;
    double best_cost = INFINITY;
    if (hand[0] < p->ends[0]) best_cost = cheapest;
    for (int k = 0; k < p->rows; k++) {
        long end = p->ends[k];
        int at = bisect_right(hand, size, end);
        if (at == size) break;
        long card = hand[at];
        long below = k + 1 < p->rows ? p->ends[k + 1] : NO_ROW_ABOVE;
        if (card > below) continue;
        long slots = row_limit - p->lens[k];
        double cost;
        if (!slots) {
            cost = (double)p->rheads[k];
        } else {
            long count = 0;
            for (long c = end + 1; c < card; c++) count += p->unseen[c];
            double mean = (double)count * scale;
            double term = exp(-mean), total = term;
            for (long i = 1; i < slots; i++) {
                term *= mean / (double)i;
                total += term;
            }
            double miss = 1.0 - total;
            if (!(miss > 0.0)) miss = 0.0; /* max(0.0, miss) */
            cost = miss * (double)(p->rheads[k] + slots) + 0.001 * (double)(card - end);
        }
        if (cost < best_cost) {
            best = at;
            best_cost = cost;
        }
    }
    return pop_at(hand, &p->size[s], best);
}

/* Start a new first row with card, from row at (the others shift up). */
static void start_row(Playout *p, int at, long card) {
    long index = p->order[at];
    for (int r = at; r > 0; r--) {
        p->ends[r] = p->ends[r - 1];
        p->lens[r] = p->lens[r - 1];
        p->rheads[r] = p->rheads[r - 1];
        p->order[r] = p->order[r - 1];
    }
    p->ends[0] = card;
    p->lens[0] = 1;
    p->rheads[0] = heads_of[card];
    p->order[0] = index;
}

/* Place the trick's cards lowest first; 0, or -1 with an error set. */
static int place_cards(Playout *p, const long *cards, PyObject *draw) {
    int by_card[MAX_SEATS];
    for (int s = 0; s < p->seats; s++) { /* sorted(zip(cards, seats)): insertion sort */
        int i = s;
        while (i > 0 && cards[by_card[i - 1]] > cards[s]) {
            by_card[i] = by_card[i - 1];
            i--;
        }
        by_card[i] = s;
    }
    for (int i = 0; i < p->seats; i++) {
        int seat = by_card[i];
        long card = cards[seat];
        int at = bisect_left(p->ends, p->rows, card) - 1; /* the highest end below the card */
        if (at >= 0) {
            if (p->lens[at] < row_limit) {
                p->ends[at] = card;
                p->lens[at] += 1;
                p->rheads[at] += heads_of[card];
            } else {
                p->heads[seat] += p->rheads[at];
                p->ends[at] = card;
                p->lens[at] = 1;
                p->rheads[at] = heads_of[card];
            }
            continue;
        }
        if (p->wild[seat]) { /* a row at random, by its index in the rules */
            double x = draw_one(draw);
            if (x == -1.0 && PyErr_Occurred()) return -1;
            long index = (long)(x * (double)p->rows);
            at = -1;
            for (int r = 0; r < p->rows; r++) {
                if (p->order[r] == index) {
                    at = r;
                    break;
                }
            }
            if (at < 0) {
                PyErr_Format(PyExc_ValueError, "no row %ld", index);
                return -1;
            }
        } else { /* the cheapest row: fewest heads, then fewest cards, then the first */
            at = 0;
            for (int r = 1; r < p->rows; r++) {
                if (p->rheads[r] < p->rheads[at] ||
                    (p->rheads[r] == p->rheads[at] &&
                     (p->lens[r] < p->lens[at] ||
                      (p->lens[r] == p->lens[at] && p->order[r] < p->order[at]))))
                    at = r;
            }
        }
        p->heads[seat] += p->rheads[at];
        start_row(p, at, card);
    }
    return 0;
}

/* Every trick left; 0, or -1 with an error set. */
static int play(Playout *p, PyObject *draw, int forced_seat, long forced_card) {
    long cards[MAX_SEATS];
    int opponents = p->seats - 1;
    while (p->size[0] > 0) {
        int choosers[MAX_SEATS], n = 0;
        for (int s = 0; s < p->seats; s++) {
            if (p->wild[s]) continue;
            if (s == forced_seat) {
                if (remove_card(p->hand[s], &p->size[s], forced_card) < 0) return -1;
                cards[s] = forced_card;
            } else {
                choosers[n++] = s;
            }
        }
        if (n) {
            long left = p->hidden - p->size[0];
            double scale = (double)opponents / (double)(left > 1 ? left : 1);
            long fewest = p->rheads[0];
            for (int r = 1; r < p->rows; r++)
                if (p->rheads[r] < fewest) fewest = p->rheads[r];
            double cheapest = (double)fewest + 0.5;
            for (int i = 0; i < n; i++) {
                if (p->size[choosers[i]] == 0) {
                    PyErr_SetString(PyExc_IndexError, "a seat has no card left");
                    return -1;
                }
                cards[choosers[i]] = rule_card(p, choosers[i], scale, cheapest);
            }
        }
        for (int s = 0; s < p->seats; s++) {
            if (!p->wild[s]) continue;
            if (s == forced_seat) {
                if (remove_card(p->hand[s], &p->size[s], forced_card) < 0) return -1;
                cards[s] = forced_card;
                continue;
            }
            double x = draw_one(draw);
            if (x == -1.0 && PyErr_Occurred()) return -1;
            int at = (int)(x * (double)p->size[s]);
            if (at < 0 || at >= p->size[s]) {
                PyErr_SetString(PyExc_IndexError, "a draw out of the hand");
                return -1;
            }
            cards[s] = pop_at(p->hand[s], &p->size[s], at);
        }
        forced_seat = -1;
        for (int s = 0; s < p->seats; s++) {
            p->hidden -= p->unseen[cards[s]];
            p->unseen[cards[s]] = 0;
        }
        if (place_cards(p, cards, draw) < 0) return -1;
    }
    return 0;
}

static int read_playout(Playout *p, PyObject *const *args) {
    long counts[4];
    long *rows[4] = {p->ends, p->lens, p->rheads, p->order};
    const char *names[4] = {"ends", "lens", "rheads", "order"};
    for (int i = 0; i < 4; i++) {
        Py_ssize_t n = read_longs(args[i], rows[i], MAX_ROWS, names[i]);
        if (n < 0) return -1;
        counts[i] = (long)n;
    }
    p->rows = (int)counts[0];
    if (p->rows == 0 || counts[1] != p->rows || counts[2] != p->rows || counts[3] != p->rows) {
        PyErr_SetString(PyExc_ValueError, "the rows' lists differ in length or are empty");
        return -1;
    }
    PyObject *hands = args[4], *heads = args[5], *unseen = args[6], *wild = args[7];
    if (!PyList_Check(hands) || !PyList_Check(heads) || !PyList_Check(unseen) ||
        !PyList_Check(wild)) {
        PyErr_SetString(PyExc_TypeError, "hands, heads, unseen and wild must be lists");
        return -1;
    }
    Py_ssize_t seats = PyList_GET_SIZE(hands);
    if (seats < 1 || seats > MAX_SEATS || PyList_GET_SIZE(heads) != seats ||
        PyList_GET_SIZE(wild) != seats) {
        PyErr_SetString(PyExc_ValueError, "hands, heads and wild: one per seat");
        return -1;
    }
    p->seats = (int)seats;
    for (int s = 0; s < p->seats; s++) {
        Py_ssize_t n = read_longs(PyList_GET_ITEM(hands, s), p->hand[s], MAX_HAND, "a hand");
        if (n < 0) return -1;
        p->size[s] = (int)n;
        p->heads[s] = PyLong_AsLong(PyList_GET_ITEM(heads, s));
        if (p->heads[s] == -1 && PyErr_Occurred()) return -1;
        int w = PyObject_IsTrue(PyList_GET_ITEM(wild, s));
        if (w < 0) return -1;
        p->wild[s] = w;
    }
    p->unseen_len = PyList_GET_SIZE(unseen);
    if (p->unseen_len > MAX_CARD || p->unseen_len > cards_known) {
        PyErr_SetString(PyExc_ValueError, "unseen: more cards than the rules have");
        return -1;
    }
    p->hidden = 0;
    for (Py_ssize_t c = 0; c < p->unseen_len; c++) {
        int flag = PyObject_IsTrue(PyList_GET_ITEM(unseen, c));
        if (flag < 0) return -1;
        p->unseen[c] = (unsigned char)flag;
        p->hidden += flag;
    }
    for (int s = 0; s < p->seats; s++)
        for (int i = 0; i < p->size[s]; i++)
            if (!card_ok(p->hand[s][i], p->unseen_len)) return -1;
    for (int r = 0; r < p->rows; r++)
        if (!card_ok(p->ends[r], p->unseen_len)) return -1;
    return 0;
}

/* The hands, heads and unseen flags back into the caller's lists. */
static int write_back(const Playout *p, PyObject *const *args) {
    PyObject *hands = args[4], *heads = args[5], *unseen = args[6];
    for (int s = 0; s < p->seats; s++) {
        PyObject *hand = PyList_New(p->size[s]);
        if (hand == NULL) return -1;
        for (int i = 0; i < p->size[s]; i++) {
            PyObject *card = PyLong_FromLong(p->hand[s][i]);
            if (card == NULL) {
                Py_DECREF(hand);
                return -1;
            }
            PyList_SET_ITEM(hand, i, card);
        }
        int failed = PyList_SetSlice(PyList_GET_ITEM(hands, s), 0, PY_SSIZE_T_MAX, hand);
        Py_DECREF(hand);
        if (failed) return -1;
        PyObject *value = PyLong_FromLong(p->heads[s]);
        if (value == NULL || PyList_SetItem(heads, s, value) < 0) return -1;
    }
    for (Py_ssize_t c = 0; c < p->unseen_len; c++) {
        if (p->unseen[c]) continue;
        PyObject *zero = PyLong_FromLong(0);
        if (zero == NULL || PyList_SetItem(unseen, c, zero) < 0) return -1;
    }
    return 0;
}

static PyObject *play_plain(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "play_plain takes 11 arguments");
        return NULL;
    }
    if (!cards_known) {
        PyErr_SetString(PyExc_RuntimeError, "configure() the rules' constants first");
        return NULL;
    }
    Playout p;
    if (read_playout(&p, args) < 0) return NULL;
    long forced_seat = PyLong_AsLong(args[9]);
    if (forced_seat == -1 && PyErr_Occurred()) return NULL;
    long forced_card = PyLong_AsLong(args[10]);
    if (forced_card == -1 && PyErr_Occurred()) return NULL;
    if (forced_seat >= p.seats || forced_seat < -1) {
        PyErr_SetString(PyExc_ValueError, "forced_seat: a seat or -1");
        return NULL;
    }
    if (forced_seat >= 0 && !card_ok(forced_card, p.unseen_len)) return NULL;
    if (play(&p, args[8], (int)forced_seat, forced_card) < 0) return NULL;
    if (write_back(&p, args) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *configure(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *table;
    long limit;
    if (!PyArg_ParseTuple(args, "O!l", &PyTuple_Type, &table, &limit)) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(table);
    if (n < 1 || n > MAX_CARD || limit < 1) {
        PyErr_SetString(PyExc_ValueError, "a heads table of 1 to 1024 cards and a row limit");
        return NULL;
    }
    for (Py_ssize_t c = 0; c < n; c++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(table, c));
        if (v == -1 && PyErr_Occurred()) return NULL;
        heads_of[c] = v;
    }
    cards_known = n;
    row_limit = limit;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"play_plain", (PyCFunction)(void (*)(void))play_plain, METH_FASTCALL,
     "Round.play_plain's loop: every trick left (see the file's head)."},
    {"configure", configure, METH_VARARGS, "configure(heads_table, row_limit)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_playout", "The reference bot's Take 5 playouts, in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__playout(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddStringConstant(m, "DIGEST", PLAYOUT_DIGEST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
