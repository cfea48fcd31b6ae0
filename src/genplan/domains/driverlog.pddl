; Driverlog, STRIPS with typing: the domain of the 3rd International Planning Competition (IPC 2002,
; D. Long and M. Fox; "The 3rd International Planning Competition: Results and Analysis", JAIR 20,
; 2003), as its `driverlog-strips-automatic` track defined it. Written for genplan from that
; published definition (same types, predicates and action schemas; lower-case names, our layout):
; no copy under a licence that allows one was found. Checked action by action against the copies in
; potassco/pddl-instances ipc-2002/domains/driverlog-strips-automatic/domain.pddl (commit
; cf19edf7c53d1540ddbb396c642595e0926ee552, no licence file) and AI-Planning/pddl-generators
; driverlog/domain.pddl (commit a0de95f1ddd67a1c5ba67d3a5107f855722f09b0, no licence file; the
; generators PlanGPT used).
(define (domain driverlog)
  (:requirements :strips :typing)
  (:types location locatable - object
          driver truck obj - locatable)
  (:predicates (at ?obj - locatable ?loc - location)
               (in ?obj1 - obj ?obj - truck)
               (driving ?d - driver ?v - truck)
               (link ?x ?y - location)
               (path ?x ?y - location)
               (empty ?v - truck))

  (:action load-truck
    :parameters (?obj - obj ?truck - truck ?loc - location)
    :precondition (and (at ?truck ?loc) (at ?obj ?loc))
    :effect (and (not (at ?obj ?loc)) (in ?obj ?truck)))

  (:action unload-truck
    :parameters (?obj - obj ?truck - truck ?loc - location)
    :precondition (and (at ?truck ?loc) (in ?obj ?truck))
    :effect (and (not (in ?obj ?truck)) (at ?obj ?loc)))

  (:action board-truck
    :parameters (?driver - driver ?truck - truck ?loc - location)
    :precondition (and (at ?truck ?loc) (at ?driver ?loc) (empty ?truck))
    :effect (and (not (at ?driver ?loc)) (driving ?driver ?truck) (not (empty ?truck))))

  (:action disembark-truck
    :parameters (?driver - driver ?truck - truck ?loc - location)
    :precondition (and (at ?truck ?loc) (driving ?driver ?truck))
    :effect (and (not (driving ?driver ?truck)) (at ?driver ?loc) (empty ?truck)))

  (:action drive-truck
    :parameters (?truck - truck ?loc-from - location ?loc-to - location ?driver - driver)
    :precondition (and (at ?truck ?loc-from) (driving ?driver ?truck) (link ?loc-from ?loc-to))
    :effect (and (not (at ?truck ?loc-from)) (at ?truck ?loc-to)))

  (:action walk
    :parameters (?driver - driver ?loc-from - location ?loc-to - location)
    :precondition (and (at ?driver ?loc-from) (path ?loc-from ?loc-to))
    :effect (and (not (at ?driver ?loc-from)) (at ?driver ?loc-to))))
