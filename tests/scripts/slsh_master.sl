#! /usr/bin/env slsh
% slsh_master.sl - a PVM task that is an S-Lang script (slang-pvm), for
% tests/e2e/test_realprog_script.sh: spawns 3 copies of slsh_slave.sl
% (scripts too) and prints their answers in the order they arrive.
require ("pvm");
define main ()
{
   variable me = pvm_mytid ();
   variable path = path_concat (path_dirname (__FILE__), "slsh_slave.sl");
   variable i, n = 3, tids = Int_Type[n];
   for (i = 0; i < n; i++)
     tids[i] = pvm_spawn (path, PvmTaskDefault, "", 1);
   for (i = 0; i < n; i++)
     {
        variable bufid = pvm_recv (-1, 1);
        variable len, tag, src;
        (len, tag, src) = pvm_bufinfo (bufid);
        variable obj = pvm_recv_obj ();
        vmessage ("slave %d says %s", wherefirst (tids == src), obj.msg);
     }
   pvm_exit ();
   exit (0);
}
main ();
