/* SPDX-License-Identifier: GPL-2.0-only */
/* Basic model types, with Xen's names and values. */
#ifndef HV_TYPES_H
#define HV_TYPES_H

#include <stdint.h>

typedef uint16_t domid_t;

#define DOMID_FIRST_RESERVED 0x7FF0u
#define DOMID_SELF           0x7FF0u
#define DOMID_IO             0x7FF1u
#define DOMID_XEN            0x7FF2u
#define DOMID_INVALID        0x7FF4u
#define DOMID_IDLE           0x7FFFu

#endif /* HV_TYPES_H */
