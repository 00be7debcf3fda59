/* The Wing–Gong/Lowe search of one part, compiled: what `compiled.py` asks before the Python
 * search (search.py) for a part that runs nearly straight through, where the Python loop's
 * cost per step, not the number of steps, is what a check spends (`first_linearization`); and
 * the same search run in slices beside the Python search of a part nothing else decided
 * (`Searcher`, `compiled.Alongside`).
 *
 * It is the plain algorithm (Lowe's "Testing for linearizability", 2017; Porcupine's search
 * is the same): the calls and returns of the part in one doubly-linked list in time order;
 * a call before the first return is linearized if the model accepts it there (its call and
 * return leave the list); when none is, the configuration failed (back to the last op
 * linearized, which goes back into the list, and on to the next candidate). Failed
 * configurations (set of ops linearized, state) are memoized. Four rules of the Python
 * search are kept, each argued in docs/check-history.md ("The search"): a read that fits is
 * the only thing tried from its configuration; an info op that leaves the state as it was is
 * not taken (as good as never taking effect); of two alike ok ops that may both come next,
 * only the one that returns first is tried (`set_twins`); and, for interned states, a
 * configuration where a read or cas can never see its value again fails (`st_dead`: pruning
 * by value, reductions.py's `Pruning`). An info op (no return) never has to
 * be linearized: the search ends when every ok op is. The candidates are tried in an order of
 * their own (`search_run`): the earliest return's op, then what it needs, then the others.
 *
 * The register and kv ops are stepped here by the rules of values.py's `_COMPILERS` (the
 * model's `step_kinds`; a test checks they agree), their states interned as numbers
 * (`intern_all`); any other model's by calling the op's compiled step (`compile_op`), its
 * states Python objects (any hashable value, compared with ==). `first_linearization` searches
 * a part only if on average at most `max_overlap` other ok ops are in flight at an ok op's
 * call (else it would backtrack: compiled.py). The answer is an order, which the caller checks
 * from scratch (`witness.witnessed`) before it counts; or, every configuration tried with no
 * order (the memo below its cap), the part not linearizable, shown by the deepest
 * configuration that failed (`keep_deepest`, `search_deepest`: the Python search's evidence,
 * whose prefix the caller also checks); or none (the step budget spent, the memo at its cap),
 * and the part is decided the Python way.
 *
 * Beside the search, two pieces of the checker's Python that a part of thousands of ops spends
 * its time on, each in one pass over the ops where Python makes several (each pass mostly cache
 * misses): `lined_up`, the first half of checking any order found (each position once, real
 * time, the ids), and `register_chains`, the registers' guess (register_fast.py). Each is held
 * by a Hypothesis test to the Python code it stands for, which still runs where this module is
 * not built. Op fields are read from attrs' slots (`slot_of`), times as C integers where they
 * are exact ints (`times_as_ints`), else as Python objects.
 *
 * One file of ~2,400 lines, past the project's ~400, because it is one extension module: the
 * memo, the interned states, the register and kv step rules, the search, the order check, the
 * register chains and the module's glue, each short, which split across files would need
 * headers and a build of several sources for no reader's gain.
 *
 * No global state, no clock, no randomness: the same arguments give the same answer. (The
 * memo's slots depend on the states' hashes, which for str vary with PYTHONHASHSEED; what the
 * memo holds, and so the search, does not.)
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h> /* T_OBJECT_EX: how a __slots__ member is kept */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the memo: failed (bits, state), open addressing ------------------------------------- */

/* The memo's cap, in words (of 8 bytes) it holds, unless the caller gives one (`Searcher`'s
 * `memo_words`, `memo_entries`: compiled.py's `memo_caps`, a share of the check's bound):
 * 128 MiB. An entry keeps the words of its set from the first that is not full to the last
 * that is not empty (the words below are all ones, those above all zeros: the window of ops in
 * flight, a word or two, whatever the length of the part), and counts `SLOT_WORDS` more for its
 * slot and its allocation. */
#define MEMO_WORDS ((Py_ssize_t)1 << 24)
#define SLOT_WORDS 5

/* The op fields read here (`field`), and where a type keeps them. */
enum { FIELD_F, FIELD_INPUT, FIELD_OUTPUT, FIELD_CALL, FIELD_RET, FIELD_ID, FIELDS };
typedef struct {
    PyTypeObject *type;          /* (borrowed) the type `offset` is for; NULL: none yet */
    Py_ssize_t offset[FIELDS];   /* its slot's offset, or -1 (getattr) */
} Fields;

/* A state: a Python object (owned where kept), or the number of an interned one (`intern_all`). */
typedef intptr_t St;

typedef struct {
    uint64_t hash;
    St state;        /* owned, if an object */
    uint64_t *bits;  /* owned, `len` words: the set's words from `lo` on; NULL: an empty slot */
    int32_t lo, len;
} Slot;

typedef struct {
    int objects;         /* the states are Python objects (else numbers) */
    Slot *slots;
    Py_ssize_t capacity; /* a power of two, or 0 */
    Py_ssize_t used;
    Py_ssize_t words;    /* of a whole set */
    Py_ssize_t held;     /* words held, counted as MEMO_WORDS says */
} Memo;

static void
memo_free(Memo *memo)
{
    for (Py_ssize_t k = 0; k < memo->capacity; k++) {
        if (memo->slots[k].bits != NULL) {
            if (memo->objects) {
                Py_DECREF((PyObject *)memo->slots[k].state);
            }
            PyMem_Free(memo->slots[k].bits);
        }
    }
    PyMem_Free(memo->slots);
    memo->slots = NULL;
    memo->capacity = memo->used = memo->held = 0;
}

/* 1: (the set whose words from `lo` to `hi` are `bits[lo:hi]`, state) is in the memo; 0: not;
 * -1: an exception (from ==). */
static int
memo_has(const Memo *memo, uint64_t hash, Py_ssize_t lo, Py_ssize_t hi, const uint64_t *bits, St state)
{
    Py_ssize_t mask = memo->capacity - 1;
    for (Py_ssize_t k = (Py_ssize_t)(hash & (uint64_t)mask);; k = (k + 1) & mask) {
        const Slot *slot = &memo->slots[k];
        if (slot->bits == NULL) {
            return 0;
        }
        if (slot->hash == hash && slot->lo == lo && slot->len == hi - lo
            && memcmp(slot->bits, bits + lo, (size_t)(hi - lo) * sizeof(uint64_t)) == 0) {
            int same = slot->state == state ? 1
                       : memo->objects ? PyObject_RichCompareBool((PyObject *)slot->state, (PyObject *)state, Py_EQ)
                                       : 0;
            if (same != 0) {
                return same;
            }
        }
    }
}

static void
memo_place(Slot *slots, Py_ssize_t capacity, Slot slot)
{
    Py_ssize_t mask = capacity - 1;
    Py_ssize_t k = (Py_ssize_t)(slot.hash & (uint64_t)mask);
    while (slots[k].bits != NULL) {
        k = (k + 1) & mask;
    }
    slots[k] = slot;
}

/* Adds (the set of `bits`, words `lo` to `hi`, state), known not to be in it; 0, or -1 with
 * MemoryError. */
static int
memo_add(Memo *memo, uint64_t hash, Py_ssize_t lo, Py_ssize_t hi, const uint64_t *bits, St state)
{
    if (2 * (memo->used + 1) > memo->capacity) {
        Py_ssize_t capacity = memo->capacity ? 2 * memo->capacity : 64;
        Slot *slots = PyMem_Calloc((size_t)capacity, sizeof(Slot));
        if (slots == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t k = 0; k < memo->capacity; k++) {
            if (memo->slots[k].bits != NULL) {
                memo_place(slots, capacity, memo->slots[k]);
            }
        }
        PyMem_Free(memo->slots);
        memo->slots = slots;
        memo->capacity = capacity;
    }
    uint64_t *copy = PyMem_Malloc((size_t)(hi - lo + 1) * sizeof(uint64_t));
    if (copy == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(copy, bits + lo, (size_t)(hi - lo) * sizeof(uint64_t));
    if (memo->objects) {
        Py_INCREF((PyObject *)state);
    }
    Slot slot = {hash, state, copy, (int32_t)lo, (int32_t)(hi - lo)};
    memo_place(memo->slots, memo->capacity, slot);
    memo->used++;
    memo->held += hi - lo + SLOT_WORDS;
    return 0;
}

/* ---- the search ----------------------------------------------------------------------------- */

static uint64_t
splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The hash of a configuration: its ops' keys xor-ed (kept as ops come and go), mixed with the
 * state's hash. */
static uint64_t
mix(uint64_t ops_hash, Py_hash_t state_hash)
{
    return ops_hash ^ ((uint64_t)state_hash * 0xD6E8FEB86659FD93ULL);
}

/* How a step is taken: the model's compiled step (a Python call), or, for the register and kv
 * models, the same rule done here (values.py `_COMPILERS`; test_compiled.py checks they agree). */
enum {
    K_STEP,      /* a: the op's step, called */
    K_NEVER,     /* an f the model does not know: refused everywhere */
    K_READ,      /* a: the value read; fits a state (value,) where value == a */
    K_SAME,      /* an info read: no effect */
    K_WRITE,     /* a: the state it leaves, (input,) */
    K_CAS,       /* a: expected, b: (new,); refused where the value is not expected */
    K_CAS_INFO,  /* the same, no effect (never taking effect) where the value is not expected */
    K_APPEND,    /* a: the suffix; null counts as "" */
};

/* The `kinds` codes, as values.py `STEP_KINDS` names them. */
enum { F_READ = 1, F_WRITE = 2, F_CAS = 3, F_APPEND = 4 };

typedef struct {
    Py_ssize_t n;
    Py_ssize_t *next, *prev; /* the list: entry 0 its head, 1+i op i's call, 1+n+i its return */
    uint64_t *keys;          /* per op, for the configuration's hash */
    uint64_t *bits;          /* the ops linearized */
    Py_ssize_t *stack_op;    /* the ops linearized, in order */
    St *stack_state;         /* the state before each (owned) */
    char *ok;                /* op i has a return */
    char *forced;            /* op i is an ok read: once it fits, nothing else is tried */
    char *kind;
    PyObject **a, **b;       /* owned, or NULL */
    Py_ssize_t *twin;        /* op i's alike op returning just before it, or -1 (see `twins`) */
    Py_ssize_t *call_rank;   /* op i's call's place in the list at the start */
    Py_ssize_t *ret_rank;    /* op i's return's place there (ok ops) */
    Py_ssize_t *by_ret;      /* the ok ops by return */
    Py_ssize_t *stack_rp;    /* where `rp` was before each op linearized */
    char *stack_phase;       /* the phase it was tried in (or, for op o, the one after) */
    Memo memo;
    Py_ssize_t cap_words;    /* the memo's cap: words held (MEMO_WORDS unless given) */
    Py_ssize_t cap_entries;  /* and entries (none unless given) */
    int native;              /* the register and kv rules stepped here (`kinds`) */
    Py_ssize_t returns;      /* ok ops */
    /* interned states (`intern_all`; `memo.objects` 0): a number per value, or (kv with
     * appends) per node of a trie of the strings, by character */
    Py_ssize_t *ia, *ib;     /* per op: the value read, written or expected; a cas's new one */
    Py_UCS4 *codes;          /* the characters of the appends' suffixes */
    Py_ssize_t *suffix_at, *suffix_len;
    int trie;
    Py_ssize_t nodes, node_cap, settled; /* nodes made; room; made before the search */
    Py_ssize_t *parent, *tin, *tout;     /* per node; tin -1: made during the search */
    uint64_t *child_key;     /* the trie's edges: (node << 21 | character) + 1, 0: empty */
    Py_ssize_t *child;
    Py_ssize_t child_cap, child_used;
    Py_ssize_t interned;     /* numbers given before the search (nodes, with a trie) */
    /* pruning by value (`st_dead`), set up when first asked (`prune_setup`) */
    Py_ssize_t *limit;       /* per ok op: the ops called before its return (positions below it) */
    Py_ssize_t *made_at;     /* per number: where its producers start in `made` (interned + 1) */
    Py_ssize_t *made;        /* the producers' positions, by the number they leave, ascending */
    Py_ssize_t *up;          /* per number: itself, or with a trie its nearest prefix (null last),
                              * that some op produces; -1: none */
    Py_ssize_t *made_by;     /* per op: the number it produces, or -1 */
    Py_ssize_t *made_left;   /* per number: its producers not linearized (kept as ops come and go) */
    int pruning;             /* 0: not set up yet; 1: ready; -1: none (states not interned) */
    Py_ssize_t pruned;       /* configurations it failed */
    /* where the search is (`search_run` goes on from there) */
    St state;                /* owned, if an object; 0 before it starts */
    int started;
    uint64_t ops_hash;
    Py_ssize_t entry, o, depth, rp, ok_left, taken;
    Py_ssize_t low, high;    /* the first word of `bits` not all ones; past the last not zero */
    int phase;
    /* the deepest configuration every way on from which failed (the evidence of a part shown
     * not linearizable: `searcher_deepest`), as search.py's `Deepest` keeps it */
    Py_ssize_t *best_op;     /* its ops linearized, in order: `best_depth` of them */
    Py_ssize_t best_depth;   /* -1: none yet */
    Py_ssize_t best_low;     /* the stack below this depth is the same as `best_op` */
    Py_ssize_t best_fail;    /* its op of the earliest return still ahead (the op that cannot follow) */
    Py_ssize_t far_rp;       /* the furthest `rp` any configuration failed at (-1: none) */
    Fields fields;           /* how the ops' fields are read (`field`) */
} Search;

static void
search_free(Search *s)
{
    if (s->memo.objects) {
        for (Py_ssize_t d = 0; d < s->depth; d++) {
            Py_DECREF((PyObject *)s->stack_state[d]);
        }
        if (s->started) {
            Py_DECREF((PyObject *)s->state);
        }
    }
    s->started = 0;
    s->depth = 0;
    PyMem_Free(s->ia);
    PyMem_Free(s->ib);
    PyMem_Free(s->codes);
    PyMem_Free(s->suffix_at);
    PyMem_Free(s->suffix_len);
    PyMem_Free(s->parent);
    PyMem_Free(s->tin);
    PyMem_Free(s->tout);
    PyMem_Free(s->child_key);
    PyMem_Free(s->child);
    PyMem_Free(s->limit);
    PyMem_Free(s->made_at);
    PyMem_Free(s->made);
    PyMem_Free(s->up);
    PyMem_Free(s->made_by);
    PyMem_Free(s->made_left);
    for (Py_ssize_t i = 0; i < s->n; i++) {
        if (s->a != NULL) {
            Py_XDECREF(s->a[i]);
        }
        if (s->b != NULL) {
            Py_XDECREF(s->b[i]);
        }
    }
    PyMem_Free(s->next);
    PyMem_Free(s->prev);
    PyMem_Free(s->keys);
    PyMem_Free(s->bits);
    PyMem_Free(s->stack_op);
    PyMem_Free(s->stack_state);
    PyMem_Free(s->ok);
    PyMem_Free(s->forced);
    PyMem_Free(s->kind);
    PyMem_Free(s->a);
    PyMem_Free(s->b);
    PyMem_Free(s->twin);
    PyMem_Free(s->call_rank);
    PyMem_Free(s->ret_rank);
    PyMem_Free(s->by_ret);
    PyMem_Free(s->stack_rp);
    PyMem_Free(s->stack_phase);
    PyMem_Free(s->best_op);
    memo_free(&s->memo);
}

/* value == other, as Python's == says it (no shortcut for the same object: nan != nan).
 * 1, 0, or -1 with an exception. */
static int
equal(PyObject *value, PyObject *other)
{
    PyObject *same = PyObject_RichCompare(value, other, Py_EQ);
    if (same == NULL) {
        return -1;
    }
    int truth = PyObject_IsTrue(same);
    Py_DECREF(same);
    return truth;
}

/* The state after op i in `state` (a new reference), Py_None (a new reference) where the op
 * cannot happen, or NULL with an exception. */
static PyObject *
step(const Search *s, Py_ssize_t i, PyObject *state)
{
    char kind = s->kind[i];
    if (kind == K_STEP) {
        return PyObject_CallOneArg(s->a[i], state);
    }
    if (kind == K_NEVER) {
        Py_RETURN_NONE;
    }
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) < 1) {
        PyErr_SetString(PyExc_TypeError, "cwgl: a register's or kv's state is a tuple (value,)");
        return NULL;
    }
    PyObject *value = PyTuple_GET_ITEM(state, 0);
    int same;
    switch (kind) {
    case K_READ:
        same = equal(value, s->a[i]);
        if (same < 0) {
            return NULL;
        }
        if (!same) {
            Py_RETURN_NONE;
        }
        Py_INCREF(state);
        return state;
    case K_SAME:
        Py_INCREF(state);
        return state;
    case K_WRITE:
        Py_INCREF(s->a[i]);
        return s->a[i];
    case K_CAS:
    case K_CAS_INFO:
        same = equal(value, s->a[i]);
        if (same < 0) {
            return NULL;
        }
        if (same) {
            Py_INCREF(s->b[i]);
            return s->b[i];
        }
        if (kind == K_CAS) {
            Py_RETURN_NONE;
        }
        Py_INCREF(state);
        return state;
    default: { /* K_APPEND */
        PyObject *empty = NULL;
        if (value == Py_None) {
            value = empty = PyUnicode_FromStringAndSize("", 0);
            if (empty == NULL) {
                return NULL;
            }
        }
        PyObject *longer = PyNumber_Add(value, s->a[i]);
        Py_XDECREF(empty);
        if (longer == NULL) {
            return NULL;
        }
        PyObject *after = PyTuple_Pack(1, longer);
        Py_DECREF(longer);
        return after;
    }
    }
}

static inline void
lift(Search *s, Py_ssize_t i)
{
    Py_ssize_t c = 1 + i, r = 1 + s->n + i;
    s->next[s->prev[c]] = s->next[c];
    s->prev[s->next[c]] = s->prev[c];
    if (s->ok[i]) {
        s->next[s->prev[r]] = s->next[r];
        s->prev[s->next[r]] = s->prev[r];
    }
}

static inline void
unlift(Search *s, Py_ssize_t i)
{
    Py_ssize_t c = 1 + i, r = 1 + s->n + i;
    if (s->ok[i]) {
        s->next[s->prev[r]] = r;
        s->prev[s->next[r]] = r;
    }
    s->next[s->prev[c]] = c;
    s->prev[s->next[c]] = c;
}

/* Links calls (in position order, non-decreasing) and returns (by `by_ret`) into one list in
 * time order; a call and a return at the same time: the call first (intervals are closed: ops
 * that touch overlap). The end is entry 0 again (a circular list). `overlap`: the sum over
 * the ok ops of the ok ops in flight at their call (the ok calls after the last return have
 * their returns after every call: counted as none left open, which does not matter here). */
static int
link_events(Search *s, PyObject **calls, PyObject **rets, const long long *at_call, const long long *at_ret,
            const Py_ssize_t *ranked, Py_ssize_t *overlap)
{
    Py_ssize_t n = s->n, m = s->ok_left;
    Py_ssize_t last = 0, c = 0, r = 0, open = 0;
    *overlap = 0;
    while (c < n || r < m) {
        Py_ssize_t entry;
        if (r == m) {
            entry = 1 + c++;
        }
        else {
            Py_ssize_t j = ranked[r];
            int call_first = 0;
            if (c < n) {
                call_first = at_call != NULL ? at_call[c] <= at_ret[j] : PyObject_RichCompareBool(calls[c], rets[j], Py_LE);
                if (call_first < 0) {
                    return -1;
                }
            }
            if (call_first) {
                if (s->ok[c]) {
                    *overlap += open++;
                }
                entry = 1 + c++;
            }
            else {
                if (s->prev[1 + j] == -1) {
                    PyErr_SetString(PyExc_ValueError, "an op returns before it is called");
                    return -1;
                }
                entry = 1 + n + j;
                open--;
                r++;
            }
        }
        s->next[last] = entry;
        s->prev[entry] = last;
        last = entry;
    }
    s->next[last] = 0;
    s->prev[0] = last;
    return 0;
}

static PyObject *name_f, *name_input, *name_output, *name_call, *name_ret, *name_id;

/* op.<field k> read from its slot, borrowed; NULL where it is not kept in one (or the slot is
 * empty): then only getattr reads it (`field`). */
static inline PyObject *
slot_of(Fields *fields, PyObject *op, int k)
{
    PyTypeObject *type = Py_TYPE(op);
    if (type != fields->type) {
        PyObject *names[FIELDS] = {name_f, name_input, name_output, name_call, name_ret, name_id};
        fields->type = type;
        for (int j = 0; j < FIELDS; j++) {
            PyObject *d = type->tp_getattro == PyObject_GenericGetAttr ? _PyType_Lookup(type, names[j]) : NULL;
            fields->offset[j] = d != NULL && Py_IS_TYPE(d, &PyMemberDescr_Type)
                                        && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX
                                    ? ((PyMemberDescrObject *)d)->d_member->offset
                                    : -1;
        }
    }
    return fields->offset[k] >= 0 ? *(PyObject **)((char *)op + fields->offset[k]) : NULL;
}

/* op.<field k> (a new reference; NULL with an exception), as getattr gives it. For ops of a
 * type whose field is a __slots__ member found the ordinary way (attrs' slotted classes:
 * `Operation`), read from its slot: a part of thousands of ops is read op by op here, and the
 * lookup by name costs more than the read. Any other type, or an empty slot: getattr. */
static PyObject *
field(Fields *fields, PyObject *op, int k)
{
    PyObject *value = slot_of(fields, op, k);
    if (value != NULL) {
        return Py_NewRef(value);
    }
    PyObject *names[FIELDS] = {name_f, name_input, name_output, name_call, name_ret, name_id};
    return PyObject_GetAttr(op, names[k]);
}

/* How op i steps (`kind`, `a`, `b`), from `kinds` (its f's code: the register and kv rules)
 * or `steps` (its compiled step). 0, or -1 with an exception. */
static int
set_kind(Search *s, Py_ssize_t i, PyObject *op, PyObject *kinds, PyObject *steps)
{
    if (kinds == Py_None) {
        s->kind[i] = K_STEP;
        s->a[i] = Py_NewRef(PyList_GET_ITEM(steps, i));
        return 0;
    }
    PyObject *f = field(&s->fields, op, FIELD_F);
    if (f == NULL) {
        return -1;
    }
    PyObject *code = PyDict_GetItemWithError(kinds, f);
    Py_DECREF(f);
    if (code == NULL) {
        if (PyErr_Occurred()) {
            return -1;
        }
        s->kind[i] = K_NEVER;
        return 0;
    }
    long c = PyLong_AsLong(code);
    if (c == -1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *input = NULL;
    if (c == F_WRITE || c == F_CAS || c == F_APPEND) {
        input = field(&s->fields, op, FIELD_INPUT);
        if (input == NULL) {
            return -1;
        }
    }
    int status = 0;
    switch (c) {
    case F_READ:
        if (!s->ok[i]) {
            s->kind[i] = K_SAME;
            break;
        }
        s->kind[i] = K_READ;
        s->forced[i] = 1;
        s->a[i] = field(&s->fields, op, FIELD_OUTPUT);
        status = s->a[i] == NULL ? -1 : 0;
        break;
    case F_WRITE:
        s->kind[i] = K_WRITE;
        s->a[i] = PyTuple_Pack(1, input);
        status = s->a[i] == NULL ? -1 : 0;
        break;
    case F_CAS: {
        s->kind[i] = s->ok[i] ? K_CAS : K_CAS_INFO;
        PyObject *pair = PySequence_Tuple(input);
        if (pair == NULL || PyTuple_GET_SIZE(pair) != 2) {
            if (pair != NULL) {
                PyErr_SetString(PyExc_ValueError, "a cas's input is [expected, new]");
                Py_DECREF(pair);
            }
            status = -1;
            break;
        }
        s->a[i] = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
        s->b[i] = PyTuple_Pack(1, PyTuple_GET_ITEM(pair, 1));
        Py_DECREF(pair);
        status = s->b[i] == NULL ? -1 : 0;
        break;
    }
    case F_APPEND:
        s->kind[i] = K_APPEND;
        s->a[i] = Py_NewRef(input);
        break;
    default:
        PyErr_SetString(PyExc_ValueError, "kinds: an unknown code");
        status = -1;
    }
    Py_XDECREF(input);
    return status;
}

/* Does the state `after` lead to one where a read of `need` fits (a register's or kv's state
 * (value,)): its value is `need`, or (kv: appends only grow a value) a string `need` starts
 * with, null counting as "". 1, 0, or -1 with an exception. Only an order rests on it. */
static int
helps(PyObject *after, PyObject *need)
{
    if (!PyTuple_Check(after) || PyTuple_GET_SIZE(after) < 1) {
        return 0;
    }
    PyObject *value = PyTuple_GET_ITEM(after, 0);
    if (value == Py_None) {
        return need == Py_None || PyUnicode_Check(need);
    }
    if (PyUnicode_Check(value) && PyUnicode_Check(need)) {
        Py_ssize_t match = PyUnicode_Tailmatch(need, value, 0, PY_SSIZE_T_MAX, -1);
        return match < 0 ? -1 : match > 0;
    }
    return equal(value, need);
}

/* ---- interned states: a number for each value, compared and hashed as a number -------------
 *
 * Why: a kv value is a string as long as its appends, so stepping an append copies it, and
 * its hash (for the memo) reads it all, at every step; a register's values are compared by
 * Python's ==. Interned, the register's values are numbers (Python's == decides which values
 * are one), and kv's strings are the nodes of a trie of their characters: an append walks its
 * suffix's few characters from the node it starts at, whatever the length of the value. Two
 * states are equal exactly when their numbers are (a node is one string). Only for the
 * register and kv rules (`kinds`), with every value hashable and equal to itself, and with
 * appends, every value a string or null; else the states stay objects. */

#define NULL_NODE 0 /* null (no value yet); "" is ROOT_NODE */
#define ROOT_NODE 1

/* The child of `node` by character `c`, made if there is none (made during the search: counted
 * in the memo's words). The node, or -1 with MemoryError. */
static Py_ssize_t
trie_child(Search *s, Py_ssize_t node, Py_UCS4 c)
{
    if (2 * (s->child_used + 1) > s->child_cap) {
        Py_ssize_t cap = s->child_cap ? 2 * s->child_cap : 1024;
        uint64_t *keys = PyMem_Calloc((size_t)cap, sizeof(uint64_t));
        Py_ssize_t *values = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
        if (keys == NULL || values == NULL) {
            PyMem_Free(keys);
            PyMem_Free(values);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t k = 0; k < s->child_cap; k++) {
            if (s->child_key[k]) {
                uint64_t h = s->child_key[k] * 0x9E3779B97F4A7C15ULL;
                Py_ssize_t j = (Py_ssize_t)(h >> 17) & (cap - 1);
                while (keys[j]) {
                    j = (j + 1) & (cap - 1);
                }
                keys[j] = s->child_key[k];
                values[j] = s->child[k];
            }
        }
        PyMem_Free(s->child_key);
        PyMem_Free(s->child);
        s->child_key = keys;
        s->child = values;
        s->child_cap = cap;
    }
    uint64_t key = (((uint64_t)node << 21) | c) + 1;
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    Py_ssize_t mask = s->child_cap - 1, j = (Py_ssize_t)(h >> 17) & mask;
    for (; s->child_key[j]; j = (j + 1) & mask) {
        if (s->child_key[j] == key) {
            return s->child[j];
        }
    }
    if (s->nodes == s->node_cap) {
        Py_ssize_t cap = 2 * s->node_cap;
        Py_ssize_t *parent = PyMem_Realloc(s->parent, (size_t)cap * sizeof(Py_ssize_t));
        if (parent == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->parent = parent;
        Py_ssize_t *tin = PyMem_Realloc(s->tin, (size_t)cap * sizeof(Py_ssize_t));
        if (tin == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->tin = tin;
        Py_ssize_t *tout = PyMem_Realloc(s->tout, (size_t)cap * sizeof(Py_ssize_t));
        if (tout == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->tout = tout;
        s->node_cap = cap;
    }
    Py_ssize_t made = s->nodes++;
    s->parent[made] = node;
    s->tin[made] = s->tout[made] = -1;
    s->child_key[j] = key;
    s->child[j] = made;
    s->child_used++;
    if (s->settled) {
        s->memo.held += 4; /* (a node made during the search: as much as a small memo entry) */
    }
    return made;
}

/* The node of string `text`'s characters from[start:end] walked from `node`; -1 with an error. */
static Py_ssize_t
trie_walk(Search *s, Py_ssize_t node, const Py_UCS4 *codes, Py_ssize_t len)
{
    for (Py_ssize_t k = 0; k < len && node >= 0; k++) {
        node = trie_child(s, node, codes[k]);
    }
    return node;
}

/* A value's number: 1 and `*id` set; 0 where it cannot be interned (not hashable, not equal to
 * itself, or, in a trie, not a string or null); -1 with an exception (memory). */
static int
intern_value(Search *s, PyObject *numbers, PyObject *value, Py_ssize_t *id)
{
    if (s->trie) {
        if (value == Py_None) {
            *id = NULL_NODE;
            return 1;
        }
        if (!PyUnicode_Check(value)) {
            return 0;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(value), node = ROOT_NODE;
        for (Py_ssize_t k = 0; k < len && node >= 0; k++) {
            node = trie_child(s, node, PyUnicode_READ_CHAR(value, k));
        }
        if (node < 0) {
            return -1;
        }
        *id = node;
        return 1;
    }
    int self = equal(value, value);
    if (self != 1) {
        PyErr_Clear();
        return 0;
    }
    PyObject *known = PyDict_GetItemWithError(numbers, value);
    if (known == NULL) {
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        PyObject *number = PyLong_FromSsize_t(PyDict_GET_SIZE(numbers));
        if (number == NULL || PyDict_SetItem(numbers, value, number) < 0) {
            Py_XDECREF(number);
            PyErr_Clear();
            return 0;
        }
        known = number;
        Py_DECREF(number); /* (the dict holds it) */
    }
    *id = PyLong_AsSsize_t(known);
    return 1;
}

/* Euler-tour numbers of the nodes made so far (`tin`, `tout`): node a is a prefix of node b
 * when tin[a] <= tin[b] and tout[b] <= tout[a]. 0, or -1 with MemoryError. */
static int
trie_settle(Search *s)
{
    Py_ssize_t n = s->nodes;
    Py_ssize_t *first = PyMem_Malloc((size_t)n * sizeof(Py_ssize_t));
    Py_ssize_t *sibling = PyMem_Malloc((size_t)n * sizeof(Py_ssize_t));
    Py_ssize_t *stack = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (first == NULL || sibling == NULL || stack == NULL) {
        PyMem_Free(first);
        PyMem_Free(sibling);
        PyMem_Free(stack);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t v = 0; v < n; v++) {
        first[v] = -1;
    }
    for (Py_ssize_t v = n - 1; v > ROOT_NODE; v--) {
        sibling[v] = first[s->parent[v]];
        first[s->parent[v]] = v;
    }
    Py_ssize_t clock = 0, top = 0;
    stack[top++] = ROOT_NODE;
    s->tin[ROOT_NODE] = clock++;
    while (top > 0) {
        Py_ssize_t v = stack[top - 1];
        Py_ssize_t c = first[v];
        if (c >= 0) {
            first[v] = sibling[c]; /* (the next child, next time) */
            s->tin[c] = clock++;
            stack[top++] = c;
        }
        else {
            s->tout[v] = clock++;
            top--;
        }
    }
    PyMem_Free(first);
    PyMem_Free(sibling);
    PyMem_Free(stack);
    s->settled = 1;
    return 0;
}

/* Interns every value of the part and `init` (a state (value,)): 1, done (`memo.objects` 0,
 * `*start` the initial state's number); 0, not possible (the states stay objects); -1 with an
 * exception. */
static int
intern_all(Search *s, PyObject *init, St *start)
{
    Py_ssize_t n = s->n, total = 0;
    if (!s->native || !PyTuple_Check(init) || PyTuple_GET_SIZE(init) != 1) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s->kind[i] == K_APPEND) {
            if (!PyUnicode_Check(s->a[i])) {
                return 0;
            }
            s->trie = 1;
            total += PyUnicode_GET_LENGTH(s->a[i]);
        }
    }
    s->ia = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    s->ib = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    s->codes = PyMem_Malloc((size_t)(total + 1) * sizeof(Py_UCS4));
    s->suffix_at = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    s->suffix_len = PyMem_Calloc((size_t)(n + 1), sizeof(Py_ssize_t));
    s->node_cap = 1024;
    s->nodes = 2; /* null and "" */
    s->parent = PyMem_Malloc((size_t)s->node_cap * sizeof(Py_ssize_t));
    s->tin = PyMem_Malloc((size_t)s->node_cap * sizeof(Py_ssize_t));
    s->tout = PyMem_Malloc((size_t)s->node_cap * sizeof(Py_ssize_t));
    PyObject *numbers = PyDict_New();
    if (!s->ia || !s->ib || !s->codes || !s->suffix_at || !s->suffix_len || !s->parent || !s->tin || !s->tout
        || numbers == NULL) {
        Py_XDECREF(numbers);
        PyErr_NoMemory();
        return -1;
    }
    s->parent[NULL_NODE] = s->parent[ROOT_NODE] = -1;
    s->tin[NULL_NODE] = s->tout[NULL_NODE] = -1;
    int status = intern_value(s, numbers, PyTuple_GET_ITEM(init, 0), start);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n && status == 1; i++) {
        switch (s->kind[i]) {
        case K_READ:
            status = intern_value(s, numbers, s->a[i], &s->ia[i]);
            break;
        case K_WRITE:
            status = intern_value(s, numbers, PyTuple_GET_ITEM(s->a[i], 0), &s->ia[i]);
            break;
        case K_CAS:
        case K_CAS_INFO:
            status = intern_value(s, numbers, s->a[i], &s->ia[i]);
            if (status == 1) {
                status = intern_value(s, numbers, PyTuple_GET_ITEM(s->b[i], 0), &s->ib[i]);
            }
            break;
        case K_APPEND: {
            Py_ssize_t len = PyUnicode_GET_LENGTH(s->a[i]);
            s->suffix_at[i] = at;
            s->suffix_len[i] = len;
            for (Py_ssize_t k = 0; k < len; k++) {
                s->codes[at++] = PyUnicode_READ_CHAR(s->a[i], k);
            }
            break;
        }
        default:
            break;
        }
    }
    s->interned = s->trie ? s->nodes : PyDict_GET_SIZE(numbers);
    Py_DECREF(numbers);
    if (status == 1 && s->trie && trie_settle(s) < 0) {
        status = -1;
    }
    if (status == 1) {
        s->memo.objects = 0;
    }
    return status;
}

/* The state after op i in `state`: 1 and `*after` (a new reference, if an object); 0 where the
 * op cannot happen; -1 with an exception. */
static int
st_step(Search *s, Py_ssize_t i, St state, St *after)
{
    if (s->memo.objects) {
        PyObject *next = step(s, i, (PyObject *)state);
        if (next == NULL) {
            return -1;
        }
        if (next == Py_None) {
            Py_DECREF(next);
            return 0;
        }
        *after = (St)next;
        return 1;
    }
    switch (s->kind[i]) {
    case K_READ:
        *after = state;
        return state == s->ia[i];
    case K_SAME:
        *after = state;
        return 1;
    case K_WRITE:
        *after = s->ia[i];
        return 1;
    case K_CAS:
    case K_CAS_INFO:
        if (state == s->ia[i]) {
            *after = s->ib[i];
            return 1;
        }
        *after = state;
        return s->kind[i] == K_CAS_INFO;
    case K_APPEND: {
        Py_ssize_t node = trie_walk(s, state == NULL_NODE ? ROOT_NODE : state, s->codes + s->suffix_at[i],
                                    s->suffix_len[i]);
        if (node < 0) {
            return -1;
        }
        *after = node;
        return 1;
    }
    default: /* K_NEVER (K_STEP: never interned) */
        return 0;
    }
}

static inline void
st_decref(const Search *s, St state)
{
    if (s->memo.objects) {
        Py_DECREF((PyObject *)state);
    }
}

/* 1, 0, or -1 with an exception. */
static inline int
st_same(const Search *s, St a, St b)
{
    if (a == b) {
        return 1;
    }
    return s->memo.objects ? PyObject_RichCompareBool((PyObject *)a, (PyObject *)b, Py_EQ) : 0;
}

/* -1 with an exception. */
static inline Py_hash_t
st_hash(const Search *s, St state)
{
    return s->memo.objects ? PyObject_Hash((PyObject *)state) : (Py_hash_t)state;
}

/* May appends alone turn interned state `from` into `need` (values.py `kv_leads_to`, made
 * exact: with no appends only `need` itself; with them, null and the prefixes of `need`)? A node
 * made during the search (`tin` -1) is a prefix of no value of the part. */
static inline int
st_leads(const Search *s, St from, Py_ssize_t need)
{
    if (!s->trie || need == NULL_NODE) {
        return from == need;
    }
    if (from == NULL_NODE) {
        return 1;
    }
    return s->tin[from] >= 0 && s->tin[from] <= s->tin[need] && s->tout[need] <= s->tout[from];
}

/* `helps`, for op o's value read. */
static int
st_helps(const Search *s, St after, Py_ssize_t o)
{
    if (s->memo.objects) {
        return helps((PyObject *)after, s->a[o]);
    }
    return st_leads(s, after, s->ia[o]);
}

/* ---- pruning by value (reductions.py `Pruning`) ----------------------------------------------
 *
 * An ok read or ok cas i that does not fit the state here needs a value (its read, its
 * expected one) that must be the state when it is linearized, and everything linearized
 * before it then is called before it returns (`limit`). Where the state does not lead to that
 * value (`st_leads`) and no op left among those, but i, leaves a value that does whatever the
 * state before it (a write, a cas: its "producers"; an append only extends a state, and a
 * state that is no prefix of the value stays none), no way on from this configuration
 * linearizes i: it failed, whatever else could be tried from it (search.py's dead end, same
 * argument: docs/check-history.md, "The search"). Asked only once a search has taken as many
 * steps as it has ops (as search.py does: the set-up costs more than it saves on a search
 * that runs straight through). */

/* The producers of each number, by position (`made_at`, `made`): 0, or -1 with MemoryError. */
static int
prune_setup(Search *s)
{
    Py_ssize_t values = s->interned, n = s->n;
    s->made_at = PyMem_Calloc((size_t)(values + 2), sizeof(Py_ssize_t));
    s->made = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->up = PyMem_Malloc((size_t)(values + 1) * sizeof(Py_ssize_t));
    s->made_by = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->made_left = PyMem_Calloc((size_t)(values + 1), sizeof(Py_ssize_t));
    if (s->made_at == NULL || s->made == NULL || s->up == NULL || s->made_by == NULL || s->made_left == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t p = 0; p < n; p++) {
        char k = s->kind[p];
        s->made_by[p] = k == K_WRITE ? s->ia[p] : k == K_CAS || k == K_CAS_INFO ? s->ib[p] : -1;
        if (s->made_by[p] >= 0) {
            s->made_at[s->made_by[p] + 2]++;
            s->made_left[s->made_by[p]] += !(s->bits[p >> 6] >> (p & 63) & 1);
        }
    }
    for (Py_ssize_t v = 0; v < values; v++) {
        s->made_at[v + 2] += s->made_at[v + 1];
    }
    for (Py_ssize_t p = 0; p < n; p++) { /* (made_at[v + 1]: where v's next one goes) */
        if (s->made_by[p] >= 0) {
            s->made[s->made_at[s->made_by[p] + 1]++] = p;
        }
    }
    /* (a node's parent is made before it: one pass in order; the prefixes of a value without
     * producers are skipped, so a check walks only those with some, not the value's length) */
    for (Py_ssize_t v = 0; v < values; v++) {
        Py_ssize_t above = -1;
        if (s->trie && v != NULL_NODE) {
            above = s->parent[v] >= 0 ? s->up[s->parent[v]] : s->up[NULL_NODE];
        }
        s->up[v] = s->made_at[v + 1] > s->made_at[v] ? v : above;
    }
    s->pruning = 1;
    return 0;
}

/* A producer of number v left (not linearized), but op i, among the positions below `hi`:
 * those left (`made_left`) but those at `hi` and after, none of which is linearized (an op is
 * linearized only when called before the earliest return still ahead, and i's return is still
 * ahead: so it was called before i returned). */
static inline int
made_left(const Search *s, Py_ssize_t v, Py_ssize_t hi, Py_ssize_t i)
{
    const Py_ssize_t *at = s->made + s->made_at[v], *end = s->made + s->made_at[v + 1];
    const Py_ssize_t *last = end;
    while (at < end) { /* the first at hi or after */
        const Py_ssize_t *mid = at + (end - at) / 2;
        if (*mid < hi) {
            at = mid + 1;
        }
        else {
            end = mid;
        }
    }
    return s->made_left[v] - (last - at) - (s->made_by[i] == v) > 0;
}

/* Op i (an ok read or cas that does not fit here) can never fit from this configuration: 1;
 * 0 where it may (or nothing is known: states not interned); -1 with MemoryError. */
static int
st_dead(Search *s, Py_ssize_t i)
{
    if (s->pruning <= 0) {
        if (s->pruning < 0 || s->taken < s->n) {
            return 0;
        }
        if (s->memo.objects || !s->native) {
            s->pruning = -1;
            return 0;
        }
        if (prune_setup(s) < 0) {
            return -1;
        }
    }
    Py_ssize_t need = s->ia[i];
    if (st_leads(s, s->state, need)) {
        return 0;
    }
    Py_ssize_t hi = s->limit[i];
    /* the value, then (appends) each prefix of it, then null: those some op produces */
    for (Py_ssize_t v = need < s->interned ? s->up[need] : -1; v >= 0;) {
        if (made_left(s, v, hi, i)) {
            return 0;
        }
        if (!s->trie || v == NULL_NODE) {
            break;
        }
        v = s->parent[v] >= 0 ? s->up[s->parent[v]] : s->up[NULL_NODE];
    }
    return 1;
}

/* `twins[i]`: an op alike op i (the same step and the same output), not a read, that returns
 * before it, or -1; None: none. While both are candidates only the one that returns earlier is
 * tried: a linearization taking op i first can swap the two (the same effect, and the earlier
 * return is met wherever op i was, every op placed before it having been called by then).
 * A twin that is not alike can only cost the search an order (the caller checks the order it
 * gets, and searches again without it where there is none), never a verdict. 0, or -1 with an
 * exception. */
static int
set_twins(Search *s, PyObject *twins)
{
    for (Py_ssize_t i = 0; i < s->n; i++) {
        s->twin[i] = -1;
        if (twins == Py_None) {
            continue;
        }
        Py_ssize_t tw = PyLong_AsSsize_t(PyList_GET_ITEM(twins, i));
        if (tw == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (tw < 0) {
            continue;
        }
        if (tw >= s->n || tw == i || !s->ok[i] || !s->ok[tw] || s->forced[i] || s->forced[tw]
            || s->ret_rank[tw] >= s->ret_rank[i]) {
            PyErr_SetString(PyExc_ValueError, "twins: an ok op, not a read, that returns earlier");
            return -1;
        }
        s->twin[i] = tw;
    }
    return 0;
}

/* (return, position) pairs, ordered: `ok_by_ret`. */
static int
by_return(const void *x, const void *y)
{
    const long long *a = x, *b = y;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

/* The positions of the ok ops by return (ties by position), into `ranked` (`ok_left` of
 * them), for `by_ret` None: one pass over the ops less in Python (a part of thousands of ops is
 * mostly cache misses). Returns are ints there (`Operation.ret`): `at_ret`, or where they were
 * not read as C integers (`times_as_ints`), the objects `rets` (TypeError if one is not a
 * 64-bit int: the caller sorts them). 0, or -1 with an exception. */
static int
ok_by_ret(const Search *s, PyObject **rets, const long long *at_ret, Py_ssize_t *ranked)
{
    Py_ssize_t n = s->n, m = 0;
    long long *pairs = PyMem_Malloc((size_t)(2 * s->ok_left + 1) * sizeof(long long));
    if (pairs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!s->ok[i]) {
            continue;
        }
        long long r;
        if (at_ret != NULL) {
            r = at_ret[i];
        }
        else {
            if (!PyLong_Check(rets[i])) {
                PyMem_Free(pairs);
                PyErr_SetString(PyExc_TypeError, "by_ret None: every return an int");
                return -1;
            }
            int overflow = 0;
            r = PyLong_AsLongLongAndOverflow(rets[i], &overflow);
            if (overflow || (r == -1 && PyErr_Occurred())) {
                PyMem_Free(pairs);
                if (overflow) {
                    PyErr_SetString(PyExc_TypeError, "by_ret None: every return a 64-bit int");
                }
                return -1;
            }
        }
        pairs[2 * m] = r;
        pairs[2 * m + 1] = i;
        m++;
    }
    qsort(pairs, (size_t)m, 2 * sizeof(long long), by_return);
    for (Py_ssize_t k = 0; k < m; k++) {
        ranked[k] = (Py_ssize_t)pairs[2 * k + 1];
    }
    PyMem_Free(pairs);
    return 0;
}

/* The list `by_ret` into `ranked`: every entry the position of an ok op, `ok_left` of them. 0,
 * or -1 with an exception. */
static int
given_by_ret(const Search *s, PyObject *by_ret, Py_ssize_t *ranked)
{
    if (PyList_GET_SIZE(by_ret) != s->ok_left) {
        PyErr_SetString(PyExc_ValueError, "by_ret: not every ok op once");
        return -1;
    }
    for (Py_ssize_t k = 0; k < s->ok_left; k++) {
        Py_ssize_t j = PyLong_AsSsize_t(PyList_GET_ITEM(by_ret, k));
        if (j == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (j < 0 || j >= s->n || !s->ok[j]) {
            PyErr_SetString(PyExc_ValueError, "by_ret: not the position of an ok op");
            return -1;
        }
        ranked[k] = j;
    }
    return 0;
}

/* Op's call, and its return where it has one (`*ok`), as C integers read borrowed from its slots:
 * 1; 0 where they are not exact ints kept there in range (the caller reads and compares them as
 * objects). A return of LLONG_MAX counts as out of range: `chains_order` takes it for none. */
static inline int
times_of(Fields *fields, PyObject *op, long long *call, long long *ret, char *ok)
{
    PyObject *c = slot_of(fields, op, FIELD_CALL), *r = slot_of(fields, op, FIELD_RET);
    int overflow = 0;
    if (c == NULL || r == NULL || !PyLong_CheckExact(c) || (r != Py_None && !PyLong_CheckExact(r))) {
        return 0;
    }
    *call = PyLong_AsLongLongAndOverflow(c, &overflow);
    *ok = r != Py_None;
    if (!overflow && *ok) {
        *ret = PyLong_AsLongLongAndOverflow(r, &overflow);
    }
    return !overflow && !(*ok && *ret == LLONG_MAX);
}

/* Every op's call and return as C integers (`at_call`, `at_ret`; `ok` set), read borrowed from
 * the ops' slots: 1 when every op keeps exact ints there in range (`Operation`), so they are
 * compared without a Python call and without a reference taken and given back (a part of
 * thousands of ops is mostly cache misses, and each of those is one more pass over them); 0
 * where one does not (they are read and compared as objects). */
static int
times_as_ints(Search *s, PyObject *ops, long long *at_call, long long *at_ret)
{
    for (Py_ssize_t i = 0; i < s->n; i++) {
        if (!times_of(&s->fields, PyTuple_GET_ITEM(ops, i), &at_call[i], &at_ret[i], &s->ok[i])
            || (i > 0 && at_call[i - 1] > at_call[i])) {
            return 0; /* (out of order: the objects' comparison says so, with its error) */
        }
    }
    return 1;
}

/* What `search_run` ended with. */
enum { RUN_FOUND = 1, RUN_BUDGET, RUN_OUT, RUN_CAP, RUN_ERROR };

/* Sets up the search of `ops` (see `first_linearization` for the arguments) in `s`, zeroed
 * before: 0; 1, not asked (more than `max_overlap` ok ops in flight on average); -1 with an
 * exception. `search_free` frees what it made in every case. */
static int
search_init(Search *s, PyObject *ops, PyObject *by_ret, PyObject *init, double max_overlap, PyObject *kinds,
            PyObject *steps, PyObject *forced, PyObject *twins)
{
    Py_ssize_t n = PyTuple_GET_SIZE(ops);
    if (kinds != Py_None ? !PyDict_Check(kinds)
                         : !PyList_Check(steps) || !PyList_Check(forced) || PyList_GET_SIZE(steps) != n
                               || PyList_GET_SIZE(forced) != n) {
        PyErr_SetString(PyExc_TypeError, "kinds: a dict; or steps and forced: a list per op");
        return -1;
    }
    if (twins != Py_None && (!PyList_Check(twins) || PyList_GET_SIZE(twins) != n)) {
        PyErr_SetString(PyExc_TypeError, "twins: None or a list per op");
        return -1;
    }
    s->n = n;
    s->native = kinds != Py_None;
    s->cap_words = MEMO_WORDS;
    s->cap_entries = PY_SSIZE_T_MAX;
    s->memo.words = n / 64 + 1;
    s->next = PyMem_Malloc((size_t)(2 * n + 1) * sizeof(Py_ssize_t));
    s->prev = PyMem_Malloc((size_t)(2 * n + 1) * sizeof(Py_ssize_t));
    s->keys = PyMem_Malloc((size_t)(n + 1) * sizeof(uint64_t));
    s->bits = PyMem_Calloc((size_t)s->memo.words, sizeof(uint64_t));
    s->stack_op = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->stack_state = PyMem_Malloc((size_t)(n + 1) * sizeof(St));
    s->ok = PyMem_Calloc((size_t)(n + 1), 1);
    s->forced = PyMem_Calloc((size_t)(n + 1), 1);
    s->kind = PyMem_Calloc((size_t)(n + 1), 1);
    s->a = PyMem_Calloc((size_t)(n + 1), sizeof(PyObject *));
    s->b = PyMem_Calloc((size_t)(n + 1), sizeof(PyObject *));
    s->twin = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->call_rank = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->ret_rank = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->by_ret = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->stack_rp = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->stack_phase = PyMem_Malloc((size_t)(n + 1));
    s->best_op = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    s->best_depth = s->best_fail = s->far_rp = -1;
    PyObject **calls = NULL, **rets = NULL;
    long long *at_call = PyMem_Malloc((size_t)(n + 1) * sizeof(long long));
    long long *at_ret = PyMem_Malloc((size_t)(n + 1) * sizeof(long long));
    Py_ssize_t *ranked = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    int status = -1;
    if (!s->next || !s->prev || !s->keys || !s->bits || !s->stack_op || !s->stack_state || !s->ok || !s->forced
        || !s->kind || !s->a || !s->b || !s->twin || !s->call_rank || !s->ret_rank || !s->by_ret || !s->stack_rp
        || !s->stack_phase || !s->best_op || !at_call || !at_ret || !ranked) {
        PyErr_NoMemory();
        goto done;
    }
    uint64_t seed = 0x7463636865636bULL; /* fixed: the same keys every run */
    for (Py_ssize_t i = 0; i < n; i++) {
        s->keys[i] = splitmix64(&seed);
        s->prev[1 + i] = -1;
    }
    if (!times_as_ints(s, ops, at_call, at_ret)) {
        /* (not `Operation`s, or times that are not ints: read and compared as objects) */
        PyMem_Free(at_call);
        PyMem_Free(at_ret);
        at_call = at_ret = NULL;
        calls = PyMem_Calloc((size_t)(n + 1), sizeof(PyObject *));
        rets = PyMem_Calloc((size_t)(n + 1), sizeof(PyObject *));
        if (!calls || !rets) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *op = PyTuple_GET_ITEM(ops, i);
            if ((calls[i] = field(&s->fields, op, FIELD_CALL)) == NULL
                || (rets[i] = field(&s->fields, op, FIELD_RET)) == NULL) {
                goto done;
            }
            if (i > 0) {
                int ordered = PyObject_RichCompareBool(calls[i - 1], calls[i], Py_LE);
                if (ordered <= 0) {
                    if (ordered == 0) {
                        PyErr_SetString(PyExc_ValueError, "ops: not in call order");
                    }
                    goto done;
                }
            }
            s->ok[i] = rets[i] != Py_None;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        s->ok_left += s->ok[i];
    }
    if ((by_ret == Py_None ? ok_by_ret(s, rets, at_ret, ranked) : given_by_ret(s, by_ret, ranked)) < 0) {
        goto done;
    }
    Py_ssize_t overlap;
    if (link_events(s, calls, rets, at_call, at_ret, ranked, &overlap) < 0) {
        goto done;
    }
    if ((double)overlap > max_overlap * (double)s->ok_left) {
        status = 1; /* many ops in flight at once: a search that backtracks (see compiled.py) */
        goto done;
    }
    s->limit = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (s->limit == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t rank = 0, called = 0;
    for (Py_ssize_t e = s->next[0]; e != 0; e = s->next[e], rank++) {
        if (e <= n) {
            s->call_rank[e - 1] = rank;
            called++;
        }
        else {
            s->ret_rank[e - 1 - n] = rank;
            s->limit[e - 1 - n] = called; /* (calls come in position order) */
            s->by_ret[s->returns++] = e - 1 - n;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (set_kind(s, i, PyTuple_GET_ITEM(ops, i), kinds, steps) < 0) {
            goto done;
        }
        if (kinds == Py_None) {
            int f = PyObject_IsTrue(PyList_GET_ITEM(forced, i));
            if (f < 0) {
                goto done;
            }
            s->forced[i] = (char)(f && s->ok[i]);
        }
    }
    if (set_twins(s, twins) < 0) {
        goto done;
    }
    s->memo.objects = 1;
    int interned = intern_all(s, init, &s->state);
    if (interned < 0) {
        goto done;
    }
    if (!interned) {
        s->state = (St)Py_NewRef(init);
    }
    s->started = 1;
    s->o = s->returns ? s->by_ret[0] : -1;
    status = 0;
done:
    if (calls != NULL && rets != NULL) {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_XDECREF(calls[i]);
            Py_XDECREF(rets[i]);
        }
    }
    PyMem_Free(calls);
    PyMem_Free(rets);
    PyMem_Free(at_call);
    PyMem_Free(at_ret);
    PyMem_Free(ranked);
    return status;
}

/* Every way on from the configuration on the stack failed: if it is the deepest so far, it
 * is the one to show (search.py's `Deepest`: the longest partial linearization, and the op of
 * the earliest return still ahead, which cannot follow it). Only the stack above `best_low`
 * changed since the last copy. */
static inline void
keep_deepest(Search *s)
{
    if (s->depth <= s->best_depth) {
        return;
    }
    memcpy(s->best_op + s->best_low, s->stack_op + s->best_low, (size_t)(s->depth - s->best_low) * sizeof(Py_ssize_t));
    s->best_low = s->best_depth = s->depth;
    s->best_fail = s->o;
}

/* The search from where it stopped, for `budget` more steps (a step: one op tried in one
 * configuration); `s->taken` counts them all. RUN_FOUND: every ok op linearized (the order on
 * the stack); RUN_BUDGET: not yet; RUN_OUT: every configuration tried, no order: not
 * linearizable (the deepest configuration that failed is kept: `best_op`); RUN_CAP: the memo
 * reached its cap first (nothing shown); RUN_ERROR: an exception.
 *
 * A configuration's candidates come in three phases: 0, op o, the earliest return still ahead
 * (it must come before any op called after that return); 1, where o is a read that does not
 * fit, the ops of the window (those called before o's return) that leave a state leading to
 * the value it read (`helps`), and reads that fit, in list order; 2, the others. Only an
 * order: every candidate is tried once in one phase, so what the search can find does not
 * change, only how soon. */
static int
search_run(Search *s, Py_ssize_t budget)
{
    budget += s->taken;
    int status = RUN_FOUND;
    while (s->ok_left > 0) {
        if (s->taken >= budget) {
            status = RUN_BUDGET;
            goto out;
        }
        s->taken++;
        Py_ssize_t i;
        if (s->phase == 0) {
            i = s->o;
            s->phase = s->native && s->kind[s->o] == K_READ ? 1 : 2;
            s->entry = s->next[0];
        }
        else {
            if (s->entry == 0 || s->entry > s->n) { /* a return: every op that may come next was tried */
                if (s->phase == 1) {
                    s->phase = 2;
                    s->entry = s->next[0];
                    continue;
                }
                keep_deepest(s);
                goto failed;
            }
            i = s->entry - 1; /* a call: op i linearized next? */
            s->entry = s->next[s->entry];
            if (i == s->o) {
                continue;
            }
        }
        Py_ssize_t tw = s->twin[i];
        if (tw >= 0 && !(s->bits[tw >> 6] >> (tw & 63) & 1) && s->call_rank[tw] < s->ret_rank[s->o]) {
            continue; /* its alike twin that returns earlier is a candidate too: that one first */
        }
        St after;
        int fits = st_step(s, i, s->state, &after);
        if (fits <= 0) {
            if (fits == 0 && s->ok[i] && (s->kind[i] == K_READ || s->kind[i] == K_CAS)) {
                int dead = st_dead(s, i);
                if (dead > 0) {
                    s->pruned++;
                    keep_deepest(s); /* (so o cannot follow either) */
                    goto failed;
                }
                fits = dead; /* (-1: an exception) */
            }
            if (fits < 0) {
                status = RUN_ERROR;
                goto out;
            }
            continue;
        }
        if (s->phase == 1 || (s->phase == 2 && s->native && s->kind[s->o] == K_READ)) {
            int first = s->kind[i] == K_READ ? 1 : st_helps(s, after, s->o);
            if (first < 0 || first != (s->phase == 1)) { /* (in the other phase); or an exception */
                st_decref(s, after);
                if (first < 0) {
                    status = RUN_ERROR;
                    goto out;
                }
                continue;
            }
        }
        if (!s->ok[i]) {
            int same = st_same(s, after, s->state);
            if (same != 0) { /* no effect: as good as never taking effect; or an exception */
                st_decref(s, after);
                if (same < 0) {
                    status = RUN_ERROR;
                    goto out;
                }
                continue;
            }
        }
        s->bits[i >> 6] |= (uint64_t)1 << (i & 63);
        Py_ssize_t low = s->low, high = (i >> 6) + 1 > s->high ? (i >> 6) + 1 : s->high;
        while (s->bits[low] == ~(uint64_t)0) {
            low++; /* (the last word is never full: n / 64 + 1 words) */
        }
        int seen = 0;
        if (s->memo.used) { /* (a state's hash is not free: a kv value is as long as its appends) */
            Py_hash_t state_hash = st_hash(s, after);
            seen = state_hash == -1 && PyErr_Occurred() ? -1
                   : memo_has(&s->memo, mix(s->ops_hash ^ s->keys[i], state_hash), low, high, s->bits, after);
        }
        if (seen != 0) { /* failed before from there; or an exception */
            s->bits[i >> 6] &= ~((uint64_t)1 << (i & 63));
            st_decref(s, after);
            if (seen < 0) {
                status = RUN_ERROR;
                goto out;
            }
            if (s->forced[i]) {
                goto failed; /* a read that fits, whose continuation failed: so does this one */
            }
            continue;
        }
        s->ops_hash ^= s->keys[i];
        s->low = low;
        s->high = high;
        s->stack_rp[s->depth] = s->rp;
        s->stack_phase[s->depth] = (char)s->phase;
        while (s->rp < s->returns && s->bits[s->by_ret[s->rp] >> 6] >> (s->by_ret[s->rp] & 63) & 1) {
            s->rp++;
        }
        s->stack_op[s->depth] = i;
        s->stack_state[s->depth++] = s->state; /* (its reference moves to the stack) */
        s->state = after;
        lift(s, i);
        if (s->pruning > 0 && s->made_by[i] >= 0) {
            s->made_left[s->made_by[i]]--;
        }
        s->ok_left -= s->ok[i];
        s->o = s->rp < s->returns ? s->by_ret[s->rp] : -1;
        s->phase = 0;
        continue;
        /* every way on from this configuration failed; so did those below it whose choice was
         * a read that fits */
    failed:
        if (s->rp > s->far_rp) {
            s->far_rp = s->rp;
        }
        for (;;) {
            if (s->depth == 0) {
                status = RUN_OUT; /* not linearizable */
                goto out;
            }
            if (s->memo.held + s->high - s->low + SLOT_WORDS > s->cap_words || s->memo.used >= s->cap_entries) {
                status = RUN_CAP; /* (its memo at its cap: the Python search's, which keeps less) */
                goto out;
            }
            Py_hash_t state_hash = st_hash(s, s->state);
            if (state_hash == -1 && PyErr_Occurred()) {
                status = RUN_ERROR;
                goto out;
            }
            if (memo_add(&s->memo, mix(s->ops_hash, state_hash), s->low, s->high, s->bits, s->state) < 0) {
                status = RUN_ERROR;
                goto out;
            }
            i = s->stack_op[--s->depth];
            if (s->depth < s->best_low) {
                s->best_low = s->depth;
            }
            s->rp = s->stack_rp[s->depth];
            s->phase = s->stack_phase[s->depth];
            s->o = s->by_ret[s->rp];
            st_decref(s, s->state);
            s->state = s->stack_state[s->depth];
            unlift(s, i);
            if (s->pruning > 0 && s->made_by[i] >= 0) {
                s->made_left[s->made_by[i]]++;
            }
            s->bits[i >> 6] &= ~((uint64_t)1 << (i & 63));
            if (i >> 6 < s->low) {
                s->low = i >> 6;
            }
            while (s->high > 0 && s->bits[s->high - 1] == 0) {
                s->high--;
            }
            s->ops_hash ^= s->keys[i];
            s->ok_left += s->ok[i];
            if (!s->forced[i]) {
                s->entry = i == s->o ? s->next[0] : s->next[1 + i]; /* on with the calls after its */
                break;
            }
        }
    }
out:
    return status;
}

/* The ops linearized, in order (positions), a new list; NULL with an exception. */
static PyObject *
search_order(const Search *s)
{
    PyObject *order = PyList_New(s->depth);
    if (order == NULL) {
        return NULL;
    }
    for (Py_ssize_t d = 0; d < s->depth; d++) {
        PyObject *position = PyLong_FromSsize_t(s->stack_op[d]);
        if (position == NULL) {
            Py_DECREF(order);
            return NULL;
        }
        PyList_SET_ITEM(order, d, position);
    }
    return order;
}

/* What shows a part not linearizable (the search ended RUN_OUT): (the deepest configuration
 * that failed: its ops in linearization order, the op that cannot follow it, the op of the
 * furthest return any configuration failed at), as positions; a new tuple, or NULL with an
 * exception. */
static PyObject *
search_deepest(const Search *s)
{
    Py_ssize_t depth = s->best_depth < 0 ? 0 : s->best_depth;
    PyObject *prefix = PyList_New(depth);
    if (prefix == NULL) {
        return NULL;
    }
    for (Py_ssize_t d = 0; d < depth; d++) {
        PyObject *position = PyLong_FromSsize_t(s->best_op[d]);
        if (position == NULL) {
            Py_DECREF(prefix);
            return NULL;
        }
        PyList_SET_ITEM(prefix, d, position);
    }
    return Py_BuildValue("(Nnn)", prefix, s->best_fail, s->far_rp < 0 ? (Py_ssize_t)-1 : s->by_ret[s->far_rp]);
}

/* first_linearization(ops, by_ret, init, budget, max_overlap, kinds, steps, forced[, twins])
 *   -> (positions in linearization order | None, steps taken, what shows it not linearizable
 *       (`search_deepest`) | None)
 * ops: the part in call order; by_ret: the positions of its ok ops by return (None: found here,
 * the returns being ints; ties by position); none asked if
 * on average more than `max_overlap` ok ops are in flight at an ok op's call; kinds: a dict
 * f -> code (values.py STEP_KINDS) or None, then steps (each op's compiled step) and forced
 * (each op a read) are lists; twins: None or, per op, an alike op returning before it or -1
 * (`set_twins`). */
static PyObject *
first_linearization(PyObject *module, PyObject *args)
{
    PyObject *ops, *by_ret, *init, *kinds, *steps, *forced, *twins = Py_None;
    Py_ssize_t budget;
    double max_overlap;
    if (!PyArg_ParseTuple(args, "O!OOndOOO|O:first_linearization", &PyTuple_Type, &ops, &by_ret, &init, &budget,
                          &max_overlap, &kinds, &steps, &forced, &twins)) {
        return NULL;
    }
    if (by_ret != Py_None && !PyList_Check(by_ret)) {
        PyErr_SetString(PyExc_TypeError, "by_ret: a list, or None");
        return NULL;
    }
    Search s;
    memset(&s, 0, sizeof s);
    PyObject *result = NULL;
    int ready = search_init(&s, ops, by_ret, init, max_overlap, kinds, steps, forced, twins);
    if (ready == 1) {
        result = Py_BuildValue("(OnO)", Py_None, (Py_ssize_t)0, Py_None);
    }
    else if (ready == 0) {
        int status = search_run(&s, budget);
        if (status == RUN_FOUND) {
            result = Py_BuildValue("(NnO)", search_order(&s), s.taken, Py_None);
        }
        else if (status == RUN_OUT) {
            result = Py_BuildValue("(OnN)", Py_None, s.taken, search_deepest(&s));
        }
        else if (status != RUN_ERROR) {
            result = Py_BuildValue("(OnO)", Py_None, s.taken, Py_None);
        }
    }
    search_free(&s);
    return result;
}

/* The real-time check of a line of ops, op by op (`line_step`), each op's call and return read
 * as C integers from its slots; where an op keeps other times (or is of another type), `ints`
 * turns 0 and the line is checked again with the times compared as objects (`line_objects`). */
typedef struct {
    long long latest; /* the latest call so far */
    int any;          /* an op so far */
    int ints;         /* every op so far kept exact ints in range */
} Line;

/* 1: op may follow the ops before it in `line` (its return, if any, no earlier than the latest
 * call before it); 0: it may not; with `ints` turned 0 where its times are not C integers. */
static inline int
line_step(Fields *fields, Line *line, PyObject *op)
{
    long long c, r;
    char ok;
    if (!times_of(fields, op, &c, &r, &ok)) {
        line->ints = 0;
        return 1;
    }
    if (ok && line->any && r < line->latest) {
        return 0;
    }
    if (!line->any || c > line->latest) {
        line->latest = c;
        line->any = 1;
    }
    return 1;
}

/* `lined_up`'s real-time check (witness.py's `in_real_time`) with the times compared as Python
 * objects (any that compare): 1, 0, or -1 with an exception. */
static int
line_objects(Fields *fields, PyObject *line)
{
    PyObject *latest = NULL; /* owned */
    int fits = 1;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(line) && fits == 1; k++) {
        PyObject *op = PyList_GET_ITEM(line, k);
        PyObject *ret = field(fields, op, FIELD_RET), *call = NULL;
        if (ret == NULL || (call = field(fields, op, FIELD_CALL)) == NULL) {
            fits = -1;
        }
        else if (ret != Py_None && latest != NULL) {
            int before = PyObject_RichCompareBool(ret, latest, Py_LT);
            fits = before < 0 ? -1 : !before;
        }
        if (fits == 1) {
            int later = latest == NULL ? 1 : PyObject_RichCompareBool(call, latest, Py_GT);
            if (later < 0) {
                fits = -1;
            }
            else if (later) {
                Py_XSETREF(latest, Py_NewRef(call));
            }
        }
        Py_XDECREF(ret);
        Py_XDECREF(call);
    }
    Py_XDECREF(latest);
    return fits;
}

/* lined_up(ops, order) -> (line, ids) | None: the ops at the positions `order` (a list of
 * ints) of the tuple `ops`, in that order, and their ids (a tuple), if each position is one of
 * `ops` and comes once, and the line keeps real time (witness.py's `in_real_time`); else None. What
 * witness.py's `lined_up` does in four passes over the ops (each position once, the line,
 * real time, the ids), in one: the first half of checking an order found without the model
 * (a guess's, or the compiled search's), by code apart from the search's; the model's half,
 * every output, is Python's (`stepped`). */
static PyObject *
lined_up(PyObject *module, PyObject *args)
{
    PyObject *ops, *order;
    if (!PyArg_ParseTuple(args, "O!O!:lined_up", &PyTuple_Type, &ops, &PyList_Type, &order)) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(ops), m = PyList_GET_SIZE(order);
    char *placed = PyMem_Calloc((size_t)n + 1, 1);
    PyObject *line = PyList_New(m), *ids = PyTuple_New(m), *result = NULL;
    if (placed == NULL || line == NULL || ids == NULL) {
        if (placed == NULL) {
            PyErr_NoMemory();
        }
        goto done;
    }
    Fields fields = {NULL, {0}};
    Line at = {0, 0, 1};
    int fits = 1;
    for (Py_ssize_t k = 0; k < m; k++) {
        Py_ssize_t p = PyLong_AsSsize_t(PyList_GET_ITEM(order, k));
        if (p == -1 && PyErr_Occurred()) {
            goto done;
        }
        if (p < 0 || p >= n || placed[p]) {
            fits = 0;
            break;
        }
        placed[p] = 1;
        PyObject *op = PyTuple_GET_ITEM(ops, p);
        PyList_SET_ITEM(line, k, Py_NewRef(op));
        PyObject *id = field(&fields, op, FIELD_ID);
        if (id == NULL) {
            goto done;
        }
        PyTuple_SET_ITEM(ids, k, id);
        if (fits && at.ints) {
            fits = line_step(&fields, &at, op);
        }
    }
    if (fits && !at.ints) {
        fits = line_objects(&fields, line);
        if (fits < 0) {
            goto done;
        }
    }
    result = fits ? PyTuple_Pack(2, line, ids) : Py_NewRef(Py_None);
done:
    PyMem_Free(placed);
    Py_XDECREF(line);
    Py_XDECREF(ids);
    return result;
}

/* ---- the register's chains (register_fast.py), read off its values ----------------------------
 *
 * `register_chains(ops, first)` is register_fast.py's `_scan`, `_taken` and `_order` (with
 * units.py's `arrange`) for ops whose fields are in slots, with int times: the same answer, op for
 * op (a Hypothesis test holds the two alike), in one pass over the ops where Python makes five,
 * each mostly cache misses on a part of thousands of ops. register_fast.py says why the chains are
 * a linearization; the caller checks the order from scratch (`witnessed`) as any guess's. */

#define NOBODY (-2) /* no op (a value's writer or swap); -1 is the initial state's writer */

static PyObject *name_read, *name_write, *name_cas;

/* Is `f` the string `name`? 1, 0, or -1 with an exception. (`pair` interns f: most often the
 * same object.) */
static inline int
is_name(PyObject *f, PyObject *name)
{
    if (f == name) {
        return 1;
    }
    if (PyUnicode_CheckExact(f)) {
        return PyUnicode_Compare(f, name) == 0;
    }
    return PyObject_RichCompareBool(f, name, Py_EQ);
}

/* The number of `value` in `numbers` (made if new; `count` grows): >= 0, or -1 with an exception
 * (TypeError for an unhashable value: the caller gives up, as with Python's dicts). */
static Py_ssize_t
number_of(PyObject *numbers, PyObject *value, Py_ssize_t *count)
{
    PyObject *known = PyDict_GetItemWithError(numbers, value);
    if (known != NULL) {
        return PyLong_AsSsize_t(known);
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    PyObject *number = PyLong_FromSsize_t(*count);
    if (number == NULL || PyDict_SetItem(numbers, value, number) < 0) {
        Py_XDECREF(number);
        return -1;
    }
    Py_DECREF(number);
    return (*count)++;
}

/* (key, position) pairs, the largest key first, ties by position: Python's stable sort with
 * reverse=True. */
static int
by_larger(const void *x, const void *y)
{
    const long long *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

/* units.py's `arrange(c, d)`: the units (latest call `c`, earliest return `d`) in an order in
 * which each may follow every one before it, into `order` (1); or two units each of which must
 * come before the other, into `order[0]`, `order[1]` (0). -1 with MemoryError. */
static int
arrange_units(const long long *c, const long long *d, Py_ssize_t n, Py_ssize_t *order)
{
    if (n == 2) {
        if (c[0] <= d[1] || c[1] <= d[0]) {
            order[0] = c[0] <= d[1] ? 0 : 1;
            order[1] = 1 - order[0];
            return 1;
        }
        order[0] = 0;
        order[1] = 1;
        return 0;
    }
    long long *pairs = PyMem_Malloc((size_t)(2 * n + 1) * sizeof(long long));
    Py_ssize_t *by_c = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *by_d = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    char *taken = PyMem_Calloc((size_t)n + 1, 1);
    int status = -1;
    Py_ssize_t k;
    if (pairs == NULL || by_c == NULL || by_d == NULL || taken == NULL) {
        goto done;
    }
    /* most often the units in the order of their latest calls will do (sorted stably: ties by
     * position, as `by_return` sorts pairs) */
    for (k = 0; k < n; k++) {
        pairs[2 * k] = c[k];
        pairs[2 * k + 1] = k;
    }
    qsort(pairs, (size_t)n, 2 * sizeof(long long), by_return);
    for (k = 1; k < n && d[pairs[2 * k + 1]] >= c[pairs[2 * k - 1]]; k++) {
    }
    if (k >= n) {
        for (k = 0; k < n; k++) {
            order[k] = (Py_ssize_t)pairs[2 * k + 1];
        }
        status = 1;
        goto done;
    }
    for (int pass = 0; pass < 2; pass++) {
        const long long *key = pass == 0 ? c : d;
        Py_ssize_t *into = pass == 0 ? by_c : by_d;
        for (k = 0; k < n; k++) {
            pairs[2 * k] = key[k];
            pairs[2 * k + 1] = k;
        }
        qsort(pairs, (size_t)n, 2 * sizeof(long long), by_larger);
        for (k = 0; k < n; k++) {
            into[k] = (Py_ssize_t)pairs[2 * k + 1];
        }
    }
    Py_ssize_t placed = 0, ci = 0, di = 0;
    while (placed < n) {
        while (taken[by_c[ci]]) {
            ci++;
        }
        Py_ssize_t top = by_c[ci];
        long long c_top = c[top];
        Py_ssize_t before = placed;
        while (di < n && d[by_d[di]] >= c_top) {
            Py_ssize_t u = by_d[di++];
            if (!taken[u]) {
                taken[u] = 1;
                order[n - 1 - placed++] = u; /* (from the back) */
            }
        }
        if (placed > before) {
            continue;
        }
        Py_ssize_t next = ci + 1;
        while (next < n && taken[by_c[next]]) {
            next++;
        }
        if (next < n && d[top] < c[by_c[next]]) {
            order[0] = top;
            order[1] = by_c[next];
            status = 0;
            goto done;
        }
        taken[top] = 1;
        order[n - 1 - placed++] = top;
    }
    status = 1;
done:
    PyMem_Free(pairs);
    PyMem_Free(by_c);
    PyMem_Free(by_d);
    PyMem_Free(taken);
    if (status < 0) {
        PyErr_NoMemory();
    }
    return status;
}

/* What `register_chains` reads of a part: per op (n), and per value (at most 2n + 1 of them:
 * each op reads, writes or expects at most two, and the initial one). */
enum { RC_READ, RC_WRITE, RC_CAS };

typedef struct {
    Py_ssize_t n;
    char *kind, *ok, *taken;
    long long *call, *ret;
    Py_ssize_t *expected;                /* per cas: the value it expects */
    Py_ssize_t *new_value;               /* per write and cas: the value it leaves */
    Py_ssize_t *next_reader;             /* per ok read: the next ok read of its value (-1: none) */
    Py_ssize_t *writes;                  /* the writes' positions, in order */
    Py_ssize_t nwrites;
    Py_ssize_t *writer, *swap;           /* per value: NOBODY, -1 (the initial state) or an op */
    Py_ssize_t *first_reader, *last_reader;
    Py_ssize_t *stack;                   /* `chains_take`'s values to look at */
    Py_ssize_t *flat, *start;            /* the chains' positions, one after another; where each starts */
    long long *c, *d;                    /* per chain: latest call, earliest return (LLONG_MAX: none) */
    Py_ssize_t *ranked;
} Chains;

static void
chains_free(Chains *r)
{
    void *all[] = {r->kind, r->ok, r->taken, r->call, r->ret, r->expected, r->new_value, r->next_reader,
                   r->writes, r->writer, r->swap, r->first_reader, r->last_reader, r->stack, r->flat, r->start,
                   r->c, r->d, r->ranked};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        PyMem_Free(all[k]);
    }
}

/* register_fast.py's `_scan`, in one pass over the ops (the values numbered by `numbers`, a dict,
 * so told apart as Python's dicts tell them): 1, read; 0, give up (None); 2, not for here (a
 * field not in a slot, times that are not 64-bit ints, a cas's input not a tuple or list of two:
 * the Python code answers); -1 with an exception (TypeError: an unhashable value). */
static int
chains_scan(Chains *r, PyObject *ops, PyObject *first, PyObject *numbers)
{
    Py_ssize_t n = r->n, count = 0;
    Fields fields = {NULL, {0}};
    Py_ssize_t v0 = number_of(numbers, first, &count);
    if (v0 < 0) {
        return -1;
    }
    r->writer[v0] = -1;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *op = PyTuple_GET_ITEM(ops, j);
        PyObject *f = slot_of(&fields, op, FIELD_F);
        if (f == NULL || !times_of(&fields, op, &r->call[j], &r->ret[j], &r->ok[j])) {
            return 2;
        }
        r->taken[j] = r->ok[j];
        int is = is_name(f, name_read);
        if (is < 0) {
            return -1;
        }
        if (is) {
            r->kind[j] = RC_READ;
            if (r->ok[j]) {
                PyObject *output = slot_of(&fields, op, FIELD_OUTPUT);
                if (output == NULL) {
                    return 2;
                }
                Py_ssize_t v = number_of(numbers, output, &count);
                if (v < 0) {
                    return -1;
                }
                r->next_reader[j] = -1;
                if (r->first_reader[v] == NOBODY) {
                    r->first_reader[v] = j;
                }
                else {
                    r->next_reader[r->last_reader[v]] = j;
                }
                r->last_reader[v] = j;
            }
            continue;
        }
        PyObject *value = slot_of(&fields, op, FIELD_INPUT);
        if (value == NULL) {
            return 2;
        }
        if ((is = is_name(f, name_write)) < 0) {
            return -1;
        }
        if (is) {
            r->kind[j] = RC_WRITE;
            r->writes[r->nwrites++] = j;
        }
        else {
            if ((is = is_name(f, name_cas)) < 0) {
                return -1;
            }
            if (!is) {
                return 0; /* (not a register's op) */
            }
            if (!(PyTuple_CheckExact(value) || PyList_CheckExact(value)) || PySequence_Fast_GET_SIZE(value) != 2) {
                return 2;
            }
            r->kind[j] = RC_CAS;
            PyObject *pair = value;
            Py_ssize_t e = number_of(numbers, PySequence_Fast_GET_ITEM(pair, 0), &count);
            if (e < 0) {
                return -1;
            }
            r->expected[j] = e;
            value = PySequence_Fast_GET_ITEM(pair, 1);
            if (r->ok[j]) {
                if (r->swap[e] != NOBODY) {
                    return 0;
                }
                r->swap[e] = j;
            }
        }
        Py_ssize_t v = number_of(numbers, value, &count);
        if (v < 0) {
            return -1;
        }
        if (r->writer[v] != NOBODY) {
            return 0;
        }
        r->writer[v] = j;
        r->new_value[j] = v;
    }
    return 1;
}

/* `_taken`: every op of unknown outcome whose value is seen, taken. 1, or 0 (give up). The
 * values are looked at in another order than Python's: what is taken is the same (every value
 * seen, and what taking an op makes seen), and so is giving up (a value seen that nobody wrote,
 * or two swaps from one value, whatever the order). */
static int
chains_take(Chains *r, Py_ssize_t values)
{
    Py_ssize_t top = 0;
    for (Py_ssize_t v = 0; v < values; v++) {
        if (r->first_reader[v] != NOBODY) {
            r->stack[top++] = v;
        }
        if (r->swap[v] != NOBODY) {
            r->stack[top++] = v;
        }
    }
    while (top > 0) {
        Py_ssize_t v = r->stack[--top], w = r->writer[v];
        if (w == NOBODY) {
            return 0; /* seen, and nobody wrote it */
        }
        if (w == -1 || r->taken[w]) {
            continue;
        }
        r->taken[w] = 1;
        if (r->kind[w] == RC_CAS) {
            Py_ssize_t e = r->expected[w];
            if (r->swap[e] != NOBODY) {
                return 0;
            }
            r->swap[e] = w;
            r->stack[top++] = e;
        }
    }
    return 1;
}

/* A new list of the positions flat[from:to]; NULL with an exception. */
static PyObject *
positions(const Py_ssize_t *flat, Py_ssize_t from, Py_ssize_t to)
{
    PyObject *list = PyList_New(to - from);
    for (Py_ssize_t k = from; list != NULL && k < to; k++) {
        PyObject *p = PyLong_FromSsize_t(flat[k]);
        if (p == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, k - from, p);
    }
    return list;
}

/* arrange(c, d) -> order | (u, v): `arrange_units` for lists of ints (units.py's `arrange`, for a
 * test to hold the two alike). */
static PyObject *
arrange(PyObject *module, PyObject *args)
{
    PyObject *cs, *ds;
    if (!PyArg_ParseTuple(args, "O!O!:arrange", &PyList_Type, &cs, &PyList_Type, &ds)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(cs);
    if (PyList_GET_SIZE(ds) != n) {
        PyErr_SetString(PyExc_ValueError, "arrange: c and d of one length");
        return NULL;
    }
    long long *c = PyMem_Malloc((size_t)(n + 1) * sizeof(long long));
    long long *d = PyMem_Malloc((size_t)(n + 1) * sizeof(long long));
    Py_ssize_t *order = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    PyObject *result = NULL;
    if (c == NULL || d == NULL || order == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        c[k] = PyLong_AsLongLong(PyList_GET_ITEM(cs, k));
        d[k] = PyLong_AsLongLong(PyList_GET_ITEM(ds, k));
        if (PyErr_Occurred()) {
            goto done;
        }
    }
    int arranged = arrange_units(c, d, n, order);
    if (arranged == 0) {
        result = Py_BuildValue("(nn)", order[0], order[1]);
    }
    else if (arranged == 1) {
        result = positions(order, 0, n);
    }
done:
    PyMem_Free(c);
    PyMem_Free(d);
    PyMem_Free(order);
    return result;
}

/* `_order`: the order (a new list), two chains each of which must come before the other (a new
 * tuple of two lists), or None (a new reference); NULL with an exception. Chain 0 is the initial
 * state's (value `v0`), then one per write taken, in position order. */
static PyObject *
chains_order(Chains *r, Py_ssize_t v0)
{
    Py_ssize_t n = r->n, used = 0, units = 0;
    for (Py_ssize_t h = -1; h < r->nwrites; h++) {
        Py_ssize_t head = h < 0 ? -1 : r->writes[h];
        if (head >= 0 && !r->taken[head]) {
            continue;
        }
        Py_ssize_t from = used;
        if (head >= 0) {
            r->flat[used++] = head;
        }
        Py_ssize_t v = head < 0 ? v0 : r->new_value[head];
        while (1) {
            for (Py_ssize_t j = r->first_reader[v]; j >= 0; j = r->next_reader[j]) {
                if (used >= n) {
                    return Py_NewRef(Py_None); /* (more placed than taken: None, as in Python) */
                }
                r->flat[used++] = j;
            }
            Py_ssize_t nxt = r->swap[v];
            if (nxt == NOBODY) {
                break;
            }
            if (used >= n) {
                return Py_NewRef(Py_None); /* (a cycle of swaps, or more placed than taken) */
            }
            r->flat[used++] = nxt;
            v = r->new_value[nxt];
        }
        long long latest = LLONG_MIN, earliest = LLONG_MAX;
        for (Py_ssize_t k = from; k < used; k++) {
            Py_ssize_t j = r->flat[k];
            if (r->call[j] > latest) {
                latest = r->call[j];
            }
            if (r->ok[j] && r->ret[j] < earliest) {
                earliest = r->ret[j];
            }
        }
        r->start[units] = from;
        r->c[units] = latest;
        r->d[units] = earliest;
        units++;
    }
    r->start[units] = used;
    Py_ssize_t taken = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        taken += r->taken[j];
    }
    if (used != taken) {
        return Py_NewRef(Py_None); /* a cas no chain reaches */
    }
    Py_ssize_t others = units - 1; /* the chains after the initial state's */
    for (Py_ssize_t u = 0; u < others; u++) {
        r->ranked[u] = u;
    }
    if (others > 1) {
        int arranged = arrange_units(r->c + 1, r->d + 1, others, r->ranked);
        if (arranged < 0) {
            return NULL;
        }
        if (arranged == 0) {
            Py_ssize_t u = 1 + r->ranked[0], w = 1 + r->ranked[1];
            PyObject *one = positions(r->flat, r->start[u], r->start[u + 1]);
            PyObject *other = one == NULL ? NULL : positions(r->flat, r->start[w], r->start[w + 1]);
            PyObject *both = other == NULL ? NULL : PyTuple_Pack(2, one, other);
            Py_XDECREF(one);
            Py_XDECREF(other);
            return both;
        }
    }
    PyObject *order = PyList_New(n);
    Py_ssize_t k = 0;
    for (Py_ssize_t x = -1; order != NULL && x < others; x++) {
        Py_ssize_t u = x < 0 ? 0 : 1 + r->ranked[x];
        for (Py_ssize_t i = r->start[u]; i < r->start[u + 1]; i++) {
            PyObject *p = PyLong_FromSsize_t(r->flat[i]);
            if (p == NULL) {
                Py_CLEAR(order);
                break;
            }
            PyList_SET_ITEM(order, k++, p);
        }
    }
    for (Py_ssize_t j = 0; order != NULL && j < n; j++) {
        if (!r->taken[j]) {
            PyObject *p = PyLong_FromSsize_t(j);
            if (p == NULL) {
                Py_CLEAR(order);
                break;
            }
            PyList_SET_ITEM(order, k++, p);
        }
    }
    return order;
}

/* register_chains(ops, first) -> order | (chain, chain) | None | NotImplemented: register_fast.py's
 * `chains_or_conflict` but its `_conflict` (which cuts the two chains returned), for the tuple
 * `ops` and the initial value `first`; NotImplemented where its ops are not for here
 * (`chains_scan`): the Python code answers. TypeError for an unhashable value. */
static PyObject *
register_chains(PyObject *module, PyObject *args)
{
    PyObject *ops, *first;
    if (!PyArg_ParseTuple(args, "O!O:register_chains", &PyTuple_Type, &ops, &first)) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(ops), values = 2 * n + 2;
    Chains r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.kind = PyMem_Calloc((size_t)n + 1, 1);
    r.ok = PyMem_Calloc((size_t)n + 1, 1);
    r.taken = PyMem_Calloc((size_t)n + 1, 1);
    r.call = PyMem_Calloc((size_t)n + 1, sizeof(long long));
    r.ret = PyMem_Calloc((size_t)n + 1, sizeof(long long));
    r.expected = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    r.new_value = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    r.next_reader = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    r.writes = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    r.flat = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    r.start = PyMem_Calloc((size_t)n + 3, sizeof(Py_ssize_t));
    r.c = PyMem_Calloc((size_t)n + 2, sizeof(long long));
    r.d = PyMem_Calloc((size_t)n + 2, sizeof(long long));
    r.ranked = PyMem_Calloc((size_t)n + 2, sizeof(Py_ssize_t));
    r.writer = PyMem_Malloc((size_t)values * sizeof(Py_ssize_t));
    r.swap = PyMem_Malloc((size_t)values * sizeof(Py_ssize_t));
    r.first_reader = PyMem_Malloc((size_t)values * sizeof(Py_ssize_t));
    r.last_reader = PyMem_Malloc((size_t)values * sizeof(Py_ssize_t));
    r.stack = PyMem_Malloc((size_t)(2 * values + n + 1) * sizeof(Py_ssize_t));
    PyObject *numbers = PyDict_New(), *result = NULL;
    if (!r.kind || !r.ok || !r.taken || !r.call || !r.ret || !r.expected || !r.new_value || !r.next_reader
        || !r.writes || !r.flat || !r.start || !r.c || !r.d || !r.ranked || !r.writer || !r.swap
        || !r.first_reader || !r.last_reader || !r.stack || numbers == NULL) {
        if (numbers != NULL) {
            PyErr_NoMemory();
        }
        goto done;
    }
    for (Py_ssize_t v = 0; v < values; v++) {
        r.writer[v] = r.swap[v] = r.first_reader[v] = r.last_reader[v] = NOBODY;
    }
    int scanned = chains_scan(&r, ops, first, numbers);
    if (scanned < 0) {
        goto done;
    }
    if (scanned == 2) {
        result = Py_NewRef(Py_NotImplemented);
    }
    else if (scanned == 0 || !chains_take(&r, PyDict_GET_SIZE(numbers))) {
        result = Py_NewRef(Py_None);
    }
    else {
        result = chains_order(&r, 0); /* (`first` was numbered first) */
    }
done:
    Py_XDECREF(numbers);
    chains_free(&r);
    return result;
}

/* ---- the search as an object, run in slices: `Searcher` -------------------------------------- */

typedef struct {
    PyObject_HEAD
    Search s;
    int ended; /* 0 while it may go on; else the RUN_ status it ended with */
} Searcher;

static void
searcher_dealloc(Searcher *self)
{
    search_free(&self->s);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
searcher_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *ops, *by_ret, *init, *kinds, *steps, *forced, *twins = Py_None;
    Py_ssize_t memo_words = -1, memo_entries = -1; /* -1: MEMO_WORDS, and no cap on entries */
    if (!PyArg_ParseTuple(args, "O!O!OOOO|Onn:Searcher", &PyTuple_Type, &ops, &PyList_Type, &by_ret, &init, &kinds,
                          &steps, &forced, &twins, &memo_words, &memo_entries)) {
        return NULL;
    }
    if (memo_words < -1 || memo_entries < -1) {
        PyErr_SetString(PyExc_ValueError, "memo_words, memo_entries: -1 (the default) or a cap >= 0");
        return NULL;
    }
    Searcher *self = (Searcher *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    memset(&self->s, 0, sizeof self->s);
    if (search_init(&self->s, ops, by_ret, init, 1e300, kinds, steps, forced, twins) != 0) {
        Py_DECREF(self);
        return NULL;
    }
    if (memo_words >= 0) {
        self->s.cap_words = memo_words;
    }
    if (memo_entries >= 0) {
        self->s.cap_entries = memo_entries;
    }
    return (PyObject *)self;
}

/* advance(budget) -> order | None | False: up to `budget` more steps; the order when every ok
 * op is linearized, None when there is none (`refuted`) or the memo reached its cap, False
 * when the budget ran out first (ask again). */
static PyObject *
searcher_advance(Searcher *self, PyObject *arg)
{
    Py_ssize_t budget = PyLong_AsSsize_t(arg);
    if (budget == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (self->ended == 0) {
        int status = search_run(&self->s, budget);
        if (status == RUN_ERROR) {
            return NULL;
        }
        if (status != RUN_BUDGET) {
            self->ended = status;
        }
    }
    if (self->ended == RUN_FOUND) {
        return search_order(&self->s);
    }
    if (self->ended == RUN_OUT || self->ended == RUN_CAP) {
        Py_RETURN_NONE;
    }
    Py_RETURN_FALSE;
}

/* refuted: what shows the part not linearizable (`search_deepest`) once every configuration
 * was tried with no order; else None. */
static PyObject *
searcher_get_refuted(Searcher *self, void *closure)
{
    if (self->ended != RUN_OUT) {
        Py_RETURN_NONE;
    }
    return search_deepest(&self->s);
}

static PyObject *
searcher_get_taken(Searcher *self, void *closure)
{
    return PyLong_FromSsize_t(self->s.taken);
}

static PyObject *
searcher_get_pruned(Searcher *self, void *closure)
{
    return PyLong_FromSsize_t(self->s.pruned);
}

static PyObject *
searcher_get_memo(Searcher *self, void *closure)
{
    return PyLong_FromSsize_t(self->s.memo.used);
}

static PyMethodDef searcher_methods[] = {
    {"advance", (PyCFunction)searcher_advance, METH_O,
     "advance(budget) -> order | None | False: the search for up to `budget` more steps."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef searcher_getset[] = {
    {"taken", (getter)searcher_get_taken, NULL, "steps taken so far", NULL},
    {"memo", (getter)searcher_get_memo, NULL, "configurations in its memo", NULL},
    {"pruned", (getter)searcher_get_pruned, NULL, "configurations failed by pruning by value (`st_dead`)", NULL},
    {"refuted", (getter)searcher_get_refuted, NULL, "what shows the part not linearizable, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearcherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "checkers.linearizability.cwgl.Searcher",
    .tp_basicsize = sizeof(Searcher),
    .tp_dealloc = (destructor)searcher_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Searcher(ops, by_ret, init, kinds, steps, forced[, twins[, memo_words, memo_entries]]): the search "
              "of one part, run in slices (`advance`), asked of every part the Python search is (compiled.py); its "
              "memo capped at `memo_words` words held and `memo_entries` entries (-1: 128 MiB, no cap on entries).",
    .tp_methods = searcher_methods,
    .tp_getset = searcher_getset,
    .tp_new = searcher_new,
};

static PyMethodDef methods[] = {
    {"first_linearization", first_linearization, METH_VARARGS,
     "first_linearization(ops, by_ret, init, budget, max_overlap, kinds, steps, forced[, twins])\n"
     "-> (order | None, steps taken, refutation | None)\n\n"
     "The Wing-Gong/Lowe search of one part (see cwgl.c and compiled.py)."},
    {"register_chains", register_chains, METH_VARARGS,
     "register_chains(ops, first) -> order | (chain, chain) | None | NotImplemented: register_fast.py's chains."},
    {"arrange", arrange, METH_VARARGS, "arrange(c, d) -> order | (u, v): units.py's arrange, for lists of ints."},
    {"lined_up", lined_up, METH_VARARGS,
     "lined_up(ops, order) -> (line, ids) | None: the ops at the positions `order`, each once, if the line "
     "keeps real time."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "checkers.linearizability.cwgl", "The compiled Wing-Gong/Lowe search (see compiled.py).",
    -1, methods,
};

PyMODINIT_FUNC
PyInit_cwgl(void)
{
    /* (interned attribute names: constants, made once) */
    if (name_f == NULL && ((name_f = PyUnicode_InternFromString("f")) == NULL
                           || (name_input = PyUnicode_InternFromString("input")) == NULL
                           || (name_output = PyUnicode_InternFromString("output")) == NULL
                           || (name_call = PyUnicode_InternFromString("call")) == NULL
                           || (name_ret = PyUnicode_InternFromString("ret")) == NULL
                           || (name_id = PyUnicode_InternFromString("id")) == NULL
                           || (name_read = PyUnicode_InternFromString("read")) == NULL
                           || (name_write = PyUnicode_InternFromString("write")) == NULL
                           || (name_cas = PyUnicode_InternFromString("cas")) == NULL)) {
        return NULL;
    }
    if (PyType_Ready(&SearcherType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "Searcher", (PyObject *)&SearcherType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
