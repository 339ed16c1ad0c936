c     fortran_self.f - a Fortran 77 PVM program, through libfpvm3's
c     bindings (pvmfsend ...), built with -g: the tests check that its
c     call sites are named by their Fortran lines, not by the bindings.
c     It sends itself a message and receives it: no other task.
      program fself
      include 'fpvm3.h'
      integer mytid, info, bufid, n
      call pvmfmytid(mytid)
      call pvmfinitsend(PVMDEFAULT, info)
      n = 7
      call pvmfpack(INTEGER4, n, 1, 1, info)
      call pvmfsend(mytid, 5, info)
      call pvmfrecv(-1, 5, bufid)
      call pvmfunpack(INTEGER4, n, 1, 1, info)
      print *, 'got', n
      call pvmfexit(info)
      end
