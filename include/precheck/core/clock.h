/* Wall-clock intervals. */
#ifndef PC_CORE_CLOCK_H
#define PC_CORE_CLOCK_H

/* Seconds on the monotonic clock (an arbitrary origin): for measuring intervals. */
double pc_clock_seconds(void);

#endif
