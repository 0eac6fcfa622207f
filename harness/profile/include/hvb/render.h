/* SPDX-License-Identifier: GPL-2.0-only */
/* Running harness/profile/render/ scripts with /usr/bin/python3 (see render.c). */
#ifndef HVB_RENDER_H
#define HVB_RENDER_H

/* The directory of the render scripts. */
const char *hvb_render_dir(void);

/*
 * hvb_render_run - run render script @script with @args (NULL-ended);
 * returns its exit status, 127 if Python cannot be run, or -errno
 * (-ENOENT: no such script).
 */
int hvb_render_run(const char *script, char *const *args);

#endif /* HVB_RENDER_H */
