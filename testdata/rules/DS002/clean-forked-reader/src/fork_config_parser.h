/* The fork's additions to deepstream-app's source group (written for this
 * test): each key is named by a CONFIG_ define, as NVIDIA's parser does. */
#ifndef FORK_CONFIG_PARSER_H
#define FORK_CONFIG_PARSER_H

#define CONFIG_GROUP_SOURCE_TYPE "type"
#define CONFIG_GROUP_SOURCE_DO_RETRANSMISSION "do-retransmission"

#endif
