# Filled in as the sub-module grows.
set(cif_sources_cxx "")
set(cif_sources_cuda "")
set(cif_sources_nocuda "")
