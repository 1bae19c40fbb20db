/* All metadata declarations: constants, IMetaDataImport2, IMetaDataEmit2,
 * IMetaDataAssemblyImport and IMetaDataAssemblyEmit. */
#ifndef AIP_CORECLR_COR_METADATA_H
#define AIP_CORECLR_COR_METADATA_H

#include "coreclr/cor_metadata_defs.h"
#include "coreclr/cor_metadata_import.h"
#include "coreclr/cor_metadata_emit.h"
#include "coreclr/cor_metadata_assembly.h"

#endif
