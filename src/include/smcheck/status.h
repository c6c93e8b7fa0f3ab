/* smcheck/status.h: what every call of libsmcheck returns. Its own header, so that the model
 * (model.h) and the targets (targets.h) can both say it. */
#ifndef SMCHECK_STATUS_H
#define SMCHECK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum smc_status {
    SMC_OK = 0,
    SMC_ERR_IO,     /* an input could not be read */
    SMC_ERR_FORMAT, /* bytes that cannot be right */
    SMC_ERR_NOMEM,
    SMC_ERR_ARG,   /* a caller's mistake */
    SMC_ERR_LIMIT, /* a limit of smc_options was reached */
} smc_status;

const char *smc_status_str(smc_status st);

#ifdef __cplusplus
}
#endif
#endif
