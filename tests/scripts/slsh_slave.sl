#! /usr/bin/env slsh
% slsh_slave.sl - spawned by slsh_master.sl: sends "hello" to its parent.
require ("pvm");
define main ()
{
   variable s = struct {msg};
   s.msg = "hello";
   pvm_send_obj (pvm_parent (), 1, s);
   pvm_exit ();
   exit (0);
}
main ();
