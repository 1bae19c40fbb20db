/* The inliners' redirected bodies: a small table searched under one lock (not at all while it
 * holds no entry: its pages stay untouched until one is added). */
#include "rejit/inliner_redirects.h"

#include <string.h>

int aip_redirects_init(aip_inliner_redirects *r)
{
    return aip_mutex_init(&r->lock);
}

static void free_entry(aip_inliner_redirects *r, aip_redirect_entry *e)
{
    aip_prepared_release(e->body);
    memset(e, 0, sizeof *e);
    r->count--;
}

void aip_redirects_destroy(aip_inliner_redirects *r)
{
    for (uint32_t i = 0; i < AIP_REDIRECT_CALLERS; ++i)
        if (r->entries[i].module_id != 0)
            free_entry(r, &r->entries[i]);
    aip_mutex_destroy(&r->lock);
}

/* Lock held. A free entry when module_id is 0. */
static aip_redirect_entry *find(aip_inliner_redirects *r, uintptr_t module_id, uint32_t caller)
{
    if (module_id != 0 && r->count == 0)
        return NULL;
    for (uint32_t i = 0; i < AIP_REDIRECT_CALLERS; ++i)
        if (r->entries[i].module_id == module_id && r->entries[i].caller == caller)
            return &r->entries[i];
    return NULL;
}

int aip_redirects_route(aip_inliner_redirects *r, uintptr_t module_id, uint32_t caller,
                        uint32_t target, uint32_t carrier, aip_call_route *out)
{
    if (module_id == 0)
        return -1;
    aip_mutex_lock(&r->lock);
    aip_redirect_entry *e = find(r, module_id, caller);
    int result = -1;
    if (e == NULL && carrier != 0) {
        e = find(r, 0, 0);
        if (e != NULL) {
            e->module_id = module_id;
            e->caller = caller;
            r->count++;
        }
    }
    if (e == NULL) {
        result = carrier == 0 ? 0 : -1; /* removing a route nobody had: none left */
    } else {
        uint32_t at = 0;
        while (at < e->route_count && e->routes[at].from != target)
            at++;
        if (carrier == 0) {
            if (at < e->route_count)
                e->routes[at] = e->routes[--e->route_count];
            result = (int)e->route_count;
        } else if (at < e->route_count) {
            e->routes[at].to = carrier;
            result = (int)e->route_count;
        } else if (e->route_count < AIP_REDIRECT_ROUTES) {
            e->routes[e->route_count++] = (aip_call_route){target, carrier};
            result = (int)e->route_count;
        }
        if (result > 0)
            memcpy(out, e->routes, e->route_count * sizeof *out);
    }
    aip_mutex_unlock(&r->lock);
    return result;
}

void aip_redirects_publish(aip_inliner_redirects *r, uintptr_t module_id, uint32_t caller,
                           aip_prepared_rejit *body)
{
    aip_prepared_rejit *old = body;
    aip_mutex_lock(&r->lock);
    aip_redirect_entry *e = find(r, module_id, caller);
    if (e != NULL && e->route_count == 0) {
        free_entry(r, e);
    } else if (e != NULL) {
        old = e->body;
        e->body = body;
    }
    aip_mutex_unlock(&r->lock);
    aip_prepared_release(old);
}

uint32_t aip_redirects_callers_of(aip_inliner_redirects *r, uintptr_t module_id, uint32_t target,
                                  uint32_t *out, uint32_t capacity)
{
    uint32_t n = 0;
    aip_mutex_lock(&r->lock);
    for (uint32_t i = 0, end = r->count > 0 ? AIP_REDIRECT_CALLERS : 0; i < end; ++i) {
        const aip_redirect_entry *e = &r->entries[i];
        if (e->module_id != module_id || module_id == 0)
            continue;
        for (uint32_t k = 0; k < e->route_count; ++k)
            if (e->routes[k].from == target) {
                if (n < capacity)
                    out[n] = e->caller;
                n++;
                break;
            }
    }
    aip_mutex_unlock(&r->lock);
    return n;
}

uint32_t aip_redirects_route_of(aip_inliner_redirects *r, uintptr_t module_id, uint32_t caller,
                                uint32_t target)
{
    if (module_id == 0)
        return 0;
    uint32_t carrier = 0;
    aip_mutex_lock(&r->lock);
    const aip_redirect_entry *e = find(r, module_id, caller);
    for (uint32_t k = 0; e != NULL && k < e->route_count; ++k)
        if (e->routes[k].from == target)
            carrier = e->routes[k].to;
    aip_mutex_unlock(&r->lock);
    return carrier;
}

aip_prepared_rejit *aip_redirects_acquire(aip_inliner_redirects *r, uintptr_t module_id,
                                          uint32_t caller)
{
    if (module_id == 0)
        return NULL;
    aip_mutex_lock(&r->lock);
    aip_redirect_entry *e = find(r, module_id, caller);
    aip_prepared_rejit *body = e != NULL ? aip_prepared_retain(e->body) : NULL;
    aip_mutex_unlock(&r->lock);
    return body;
}

void aip_redirects_forget_module(aip_inliner_redirects *r, uintptr_t module_id)
{
    aip_mutex_lock(&r->lock);
    for (uint32_t i = 0; i < AIP_REDIRECT_CALLERS; ++i)
        if (r->entries[i].module_id == module_id && module_id != 0)
            free_entry(r, &r->entries[i]);
    aip_mutex_unlock(&r->lock);
}
